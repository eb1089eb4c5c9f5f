package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// dockerCgroups gives every container of the Docker backend a parent
// cgroup that novelapi creates, passes as HostConfig.CgroupParent, reads
// after the run and removes, so CPU time, peak memory and pids-limit hits
// are measured from outside the container.
//
// The container's own cgroup cannot be read: runc removes it when the
// container exits, before ContainerWait returns (measured: Docker 20.10,
// cgroupfs driver, cgroup v1). The parent's counters survive and hold the
// child's charges, because they are hierarchical: on v1
// memory.max_usage_in_bytes (a high-water mark) and cpuacct.usage, on v2
// memory.peak and cpu.stat usage_usec. pids.events is hierarchical only on
// v2 with a recent kernel; v1 counts a refused fork in the forking cgroup
// alone (measured: the parent's "max" stays 0). So a pids-limit hit is also
// read from the container's own pids.events while it runs (polled, and
// before every kill), and, for a refusal just before the exit, as the
// parent's pids.peak reaching the limit after the start: runc init's
// threads count in the container's cgroup before the program runs (a peak
// of 5-8 tasks measured, whatever the limit), so a peak no higher than the
// one at start says nothing.
//
// Layout: on v1 ROOT/CTRL/novelapi-OWNER-dN in every hierarchy (runc creates
// those of the controllers novelapi does not read), at the root like the
// bwrap backend's cpu cgroups, so each container weighs what one host task
// does; on v2 ROOT/novelapi/OWNER-dN, beside the bwrap backend's run
// cgroups. OWNER is ownerTag, so a sweep can tell leftovers of dead
// harnesses from runs of live ones.
type dockerCgroups struct {
	root string
	v2   *cgroups          // v2: the shared novelapi parent; nil on v1
	v1   map[string]string // v1: controller read → its hierarchy's directory
	seq  atomic.Int64
}

// dockerCgroupPrefix starts the name of every v1 parent directory.
const dockerCgroupPrefix = cgroupParent + "-"

// openDockerCgroups checks that the engine's containers land in the cgroup
// hierarchy mounted at root ("" means /sys/fs/cgroup) and that novelapi
// can create parents there. The engine must be local (a unix socket,
// daemonHost as client.DaemonHost returns it) and use the cgroupfs driver
// (driver and version as Info reports them): the systemd driver takes
// slice names, which this code does not manage. The error says why
// nothing can be measured.
func openDockerCgroups(root, daemonHost, driver, version string) (*dockerCgroups, error) {
	if root == "" {
		root = "/sys/fs/cgroup"
	}
	if !strings.HasPrefix(daemonHost, "unix://") {
		return nil, fmt.Errorf("the engine at %s may be on another host", daemonHost)
	}
	if driver != "cgroupfs" {
		return nil, fmt.Errorf("the engine's cgroup driver is %q (only cgroupfs is supported)", driver)
	}
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	v2 := err == nil
	if (version == "2") != v2 {
		return nil, fmt.Errorf("the engine reports cgroup v%s but %s is not that version", version, root)
	}
	dc := &dockerCgroups{root: root}
	if v2 {
		c, err := openCgroupsV2(root)
		if err != nil {
			return nil, err
		}
		dc.v2 = c
		return dc, nil
	}
	dc.v1 = map[string]string{}
	for _, ctrl := range []string{"memory", "cpuacct", "pids"} {
		real, err := filepath.EvalSymlinks(filepath.Join(root, ctrl))
		if err == nil {
			_, err = os.Stat(filepath.Join(real, "cgroup.procs"))
		}
		if err != nil {
			return nil, fmt.Errorf("cgroup v1 controller %q not mounted under %s", ctrl, root)
		}
		dc.v1[ctrl] = real
	}
	return dc, nil
}

// A dockerRun is the parent cgroup of one container. Its methods are
// called by the one goroutine that runs the container; a nil *dockerRun
// measures nothing.
type dockerRun struct {
	dc        *dockerCgroups
	parent    string // HostConfig.CgroupParent: "/novelapi-OWNER-dN" (v1), "/novelapi/OWNER-dN" (v2)
	cg        *runCgroup
	events    string // the container's own pids.events; "" before started
	startPeak int64  // the parent's pids.peak once the container had started
	refused   bool   // the container's pids.events showed a refused fork
}

// create makes the parent cgroup of one container. Limits stay on the
// container's own cgroup, where the engine puts them.
func (dc *dockerCgroups) create() (_ *dockerRun, err error) {
	name := fmt.Sprintf("%s-d%d", ownerTag(), dc.seq.Add(1))
	r := &dockerRun{dc: dc, cg: &runCgroup{name: name, dirs: map[string]string{}}}
	defer func() {
		if err != nil {
			_ = r.remove()
		}
	}()
	if dc.v2 != nil {
		dir := filepath.Join(dc.v2.parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		r.cg.dirs[""] = dir
		// For the container's cgroup; runc enables them too.
		_ = writeFile(dir, "cgroup.subtree_control", "+memory +pids +cpu")
		rel, err := filepath.Rel(dc.root, dir)
		if err != nil {
			return nil, err
		}
		r.parent = "/" + filepath.ToSlash(rel)
		return r, nil
	}
	for ctrl, hier := range dc.v1 {
		dir := filepath.Join(hier, dockerCgroupPrefix+name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		r.cg.dirs[ctrl] = dir
	}
	r.parent = "/" + dockerCgroupPrefix + name
	return r, nil
}

// started records, once ContainerStart has returned for container id, the
// parent's pids.peak so far (the runtime's start-up) and where the
// container's own cgroup is (cgroupfs: PARENT/ID).
func (r *dockerRun) started(id string) {
	if r == nil {
		return
	}
	dir := r.cg.procsDir()
	r.startPeak, _ = readInt(filepath.Join(dir, "pids.peak"))
	r.events = filepath.Join(dir, id, "pids.events")
	r.poll()
}

// poll reads the container's own pids.events, which exists until the
// container exits.
func (r *dockerRun) poll() {
	if r == nil || r.events == "" || r.refused {
		return
	}
	r.refused = keyedInt(r.events, "max") > 0
}

// apply records the run's CPU time, peak memory, pids-limit hit and OOM
// kill in res, once every process of the container has exited. pids is the
// container's pids limit. It reports false, leaving res alone, when the
// parent saw nothing of the container (an engine whose cgroups are not the
// ones mounted here).
func (r *dockerRun) apply(res *Result, pids int) bool {
	if r == nil {
		return false
	}
	st := r.cg.stats()
	pidsDir := r.cg.procsDir()
	peak, _ := readInt(filepath.Join(pidsDir, "pids.peak"))
	if peak <= 0 && st.CPU <= 0 {
		return false
	}
	if st.HaveCPU {
		res.CPU = st.CPU
	}
	res.PeakMem = st.PeakMem
	res.PIDLimitHit = st.PIDsHit || r.refused || (pids > 0 && peak >= int64(pids) && peak > r.startPeak)
	res.OOMKilled = res.OOMKilled || st.OOM
	return true
}

// remove deletes the parent in every hierarchy (runc creates it in those
// novelapi does not read). The container must be gone: a parent that still
// has the container's cgroup below it cannot be removed.
func (r *dockerRun) remove() error {
	if r.dc.v2 == nil {
		r.addV1Dirs()
	}
	return r.cg.remove()
}

// addV1Dirs adds the run's directory in every v1 hierarchy under the root.
func (r *dockerRun) addV1Dirs() {
	m, _ := filepath.Glob(filepath.Join(r.dc.root, "*", dockerCgroupPrefix+r.cg.name))
	for _, d := range m {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			r.cg.dirs[real] = real // co-mounted hierarchies resolve to one directory
		}
	}
}

// sweep removes the parents left by harness processes that are gone (the
// engine sweep has removed their containers first); parents of live
// harnesses stay. It returns the number removed.
func (dc *dockerCgroups) sweep(log *slog.Logger) int {
	var names []string
	if dc.v2 != nil {
		ents, _ := os.ReadDir(dc.v2.parent)
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	} else {
		m, _ := filepath.Glob(filepath.Join(dc.root, "*", dockerCgroupPrefix+"*"))
		seen := map[string]bool{}
		for _, d := range m {
			n := strings.TrimPrefix(filepath.Base(d), dockerCgroupPrefix)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	n := 0
	for _, name := range names {
		if !isDockerRunName(name) || ownerAlive(name) {
			continue
		}
		r := &dockerRun{dc: dc, cg: &runCgroup{name: name, dirs: map[string]string{}}}
		if dc.v2 != nil {
			r.cg.dirs[""] = filepath.Join(dc.v2.parent, name)
		}
		if err := r.remove(); err != nil {
			log.Warn("sandbox: docker sweep: remove cgroup", "name", name, "err", err)
			continue
		}
		n++
	}
	return n
}

// isDockerRunName reports whether name has the form PID-STARTTICKS-dN of a
// Docker run's parent cgroup (the bwrap backend's run cgroups end in a
// plain number).
func isDockerRunName(name string) bool {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || !strings.HasPrefix(name[i+1:], "d") {
		return false
	}
	_, err := strconv.ParseUint(name[i+2:], 10, 64)
	return err == nil
}
