package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupParent is the directory (per v1 controller, or in the v2 tree)
// under which every run gets its own cgroup.
const cgroupParent = "novelapi"

// v1Controllers are the cgroup-v1 controllers a run uses; memory and pids
// are required, the others optional (docs/sandbox.md §4.3).
var v1Controllers = []string{"memory", "pids", "cpu", "cpuacct", "freezer"}

// cgroups manages the per-run cgroups of one process, on a v2 (unified)
// or a v1 host.
type cgroups struct {
	v2     bool
	parent string            // v2: ROOT/novelapi
	v1     map[string]string // v1: controller → ROOT/CTRL/novelapi (ROOT/cpu for cpu)
	prefix map[string]string // v1: controller → prefix of run directory names ("novelapi-" for cpu)
	seq    atomic.Int64
}

// openCgroups finds the cgroup hierarchy under root ("" means
// /sys/fs/cgroup) and creates the novelapi parent directories.
func openCgroups(root string) (*cgroups, error) {
	if root == "" {
		root = "/sys/fs/cgroup"
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
		return openCgroupsV2(root)
	}
	c := &cgroups{v1: map[string]string{}, prefix: map[string]string{}}
	seen := map[string]bool{}
	for _, ctrl := range v1Controllers {
		dir := filepath.Join(root, ctrl)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(real, "cgroup.procs")); err != nil {
			continue
		}
		if seen[real] { // co-mounted controllers (cpu,cpuacct) share one directory
			continue
		}
		seen[real] = true
		if ctrl == "cpu" {
			// cpu runs sit directly at the hierarchy's root, named
			// novelapi-RUN: under a shared parent, all concurrent sandboxes
			// together would get the CPU weight of one host task (§5); at
			// the root each run weighs what an ordinary process does.
			c.v1[ctrl], c.prefix[ctrl] = real, cgroupParent+"-"
			continue
		}
		p := filepath.Join(real, cgroupParent)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create cgroup %s: %w", p, err)
		}
		c.v1[ctrl] = p
	}
	for _, need := range []string{"memory", "pids"} {
		if c.v1[need] == "" {
			return nil, fmt.Errorf("cgroup v1 controller %q not mounted under %s", need, root)
		}
	}
	return c, nil
}

func openCgroupsV2(root string) (*cgroups, error) {
	p := filepath.Join(root, cgroupParent)
	if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create cgroup %s: %w", p, err)
	}
	// Enable the controllers for the parent and its children; errors show up
	// below as missing files.
	_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0)
	_ = os.WriteFile(filepath.Join(p, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0)
	ctrls, err := os.ReadFile(filepath.Join(p, "cgroup.subtree_control"))
	if err != nil {
		return nil, fmt.Errorf("read cgroup controllers: %w", err)
	}
	for _, need := range []string{"memory", "pids"} {
		if !bytes.Contains(ctrls, []byte(need)) {
			return nil, fmt.Errorf("cgroup v2 controller %q not enabled in %s (have %q)", need, p, strings.TrimSpace(string(ctrls)))
		}
	}
	_ = writeFile(p, "cpu.weight", min(100*runtime.NumCPU(), 10000)) // see the v1 cpu.shares note
	return &cgroups{v2: true, parent: p}, nil
}

// runCgroup is the cgroup of one run.
type runCgroup struct {
	c    *cgroups
	name string
	dirs map[string]string // v1: controller → dir; v2: "" → dir
}

// create makes the cgroup of one run and applies the memory, pids and CPU
// limits of l (defaults applied). The name embeds this process's pid and
// start time so a later sweep can tell leftovers of dead harnesses from
// runs of live ones (P19).
func (c *cgroups) create(l Limits) (_ *runCgroup, err error) {
	name := fmt.Sprintf("%s-%d", ownerTag(), c.seq.Add(1))
	r := &runCgroup{c: c, name: name, dirs: map[string]string{}}
	defer func() {
		if err != nil {
			r.remove()
		}
	}()
	if c.v2 {
		dir := filepath.Join(c.parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		r.dirs[""] = dir
		if err := writeFile(dir, "memory.max", l.Memory); err != nil {
			return nil, err
		}
		_ = writeFile(dir, "memory.swap.max", 0)
		if err := writeFile(dir, "pids.max", l.PIDs); err != nil {
			return nil, err
		}
		_ = writeFile(dir, "cpu.max", fmt.Sprintf("%d 100000", int64(l.CPUs*100000)))
		return r, nil
	}
	for ctrl, parent := range c.v1 {
		dir := filepath.Join(parent, c.prefix[ctrl]+name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		r.dirs[ctrl] = dir
	}
	mem := r.dirs["memory"]
	if err := writeFile(mem, "memory.limit_in_bytes", l.Memory); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(mem, "memory.memsw.limit_in_bytes")); err == nil {
		if err := writeFile(mem, "memory.memsw.limit_in_bytes", l.Memory); err != nil {
			return nil, err
		}
	} else {
		_ = writeFile(mem, "memory.swappiness", 0)
	}
	if err := writeFile(r.dirs["pids"], "pids.max", l.PIDs); err != nil {
		return nil, err
	}
	if d := r.dirs["cpu"]; d != "" {
		_ = writeFile(d, "cpu.cfs_period_us", 100000)
		_ = writeFile(d, "cpu.cfs_quota_us", int64(l.CPUs*100000))
	}
	return r, nil
}

// add moves pid into the run's cgroup (every controller). Children the
// process forks afterwards inherit it.
func (r *runCgroup) add(pid int) error {
	for _, dir := range r.dirs {
		if err := writeFile(dir, "cgroup.procs", pid); err != nil {
			return err
		}
	}
	return nil
}

// procsDir is the directory whose cgroup.procs lists the run's processes.
func (r *runCgroup) procsDir() string {
	if d, ok := r.dirs[""]; ok {
		return d
	}
	return r.dirs["pids"]
}

// procs returns the pids in the run's cgroup (nil when it is gone).
func (r *runCgroup) procs() []int {
	return readPids(filepath.Join(r.procsDir(), "cgroup.procs"))
}

func readPids(path string) []int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// kill SIGKILLs every process of the run and returns once the cgroup is
// empty or after about a second. v2 uses cgroup.kill; v1 freezes the
// cgroup first so a fork bomb cannot outrun the kill loop (P20, P25).
// ESRCH is expected (P15).
func (r *runCgroup) kill() {
	if d, ok := r.dirs[""]; ok {
		if writeFile(d, "cgroup.kill", 1) != nil {
			killPids(r.procs())
		}
	} else {
		fr := r.dirs["freezer"]
		if fr != "" {
			_ = writeFile(fr, "freezer.state", "FROZEN")
			for i := 0; i < 20; i++ {
				if st, _ := os.ReadFile(filepath.Join(fr, "freezer.state")); strings.TrimSpace(string(st)) == "FROZEN" {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		killPids(r.procs())
		if fr != "" {
			_ = writeFile(fr, "freezer.state", "THAWED")
		}
	}
	for i := 0; i < 200; i++ {
		pids := r.procs()
		if len(pids) == 0 {
			return
		}
		killPids(pids)
		time.Sleep(5 * time.Millisecond)
	}
}

func killPids(pids []int) {
	for _, p := range pids {
		_ = unix.Kill(p, unix.SIGKILL)
	}
}

// cgroupStats are the facts a run's cgroup recorded.
type cgroupStats struct {
	PeakMem int64
	OOM     bool
	PIDsHit bool
	CPU     time.Duration
	HaveCPU bool
}

func (r *runCgroup) stats() cgroupStats {
	var s cgroupStats
	if d, ok := r.dirs[""]; ok {
		s.PeakMem, _ = readInt(filepath.Join(d, "memory.peak"))
		s.OOM = keyedInt(filepath.Join(d, "memory.events"), "oom_kill") > 0
		s.PIDsHit = keyedInt(filepath.Join(d, "pids.events"), "max") > 0
		if us := keyedInt(filepath.Join(d, "cpu.stat"), "usage_usec"); us >= 0 {
			s.CPU, s.HaveCPU = time.Duration(us)*time.Microsecond, true
		}
		return s
	}
	mem := r.dirs["memory"]
	s.PeakMem, _ = readInt(filepath.Join(mem, "memory.max_usage_in_bytes"))
	s.OOM = keyedInt(filepath.Join(mem, "memory.oom_control"), "oom_kill") > 0
	s.PIDsHit = keyedInt(filepath.Join(r.dirs["pids"], "pids.events"), "max") > 0
	if d := r.dirs["cpuacct"]; d != "" {
		if ns, err := readInt(filepath.Join(d, "cpuacct.usage")); err == nil {
			s.CPU, s.HaveCPU = time.Duration(ns), true
		}
	}
	return s
}

// remove kills what is left and removes the run's cgroup directories,
// retrying rmdir on EBUSY for up to two seconds (P20).
func (r *runCgroup) remove() error {
	var firstErr error
	deadline := time.Now().Add(2 * time.Second)
	for ctrl, dir := range r.dirs {
		for {
			err := os.Remove(dir)
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				break
			}
			if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
				if firstErr == nil {
					firstErr = fmt.Errorf("remove cgroup %s: %w", dir, err)
				}
				break
			}
			killPids(readPids(filepath.Join(dir, "cgroup.procs")))
			time.Sleep(10 * time.Millisecond)
		}
		delete(r.dirs, ctrl)
	}
	return firstErr
}

// sweep removes the run cgroups left by harness processes that are gone
// (SIGKILLed mid-run), killing their members first (P19, P20). Cgroups of
// live processes (concurrent harnesses) are left alone. It returns the
// number removed.
func (c *cgroups) sweep(log *slog.Logger) int {
	type parentDir struct{ dir, prefix string }
	parents := []parentDir{{c.parent, ""}}
	if !c.v2 {
		parents = parents[:0]
		for ctrl, p := range c.v1 {
			parents = append(parents, parentDir{p, c.prefix[ctrl]})
		}
	}
	n := 0
	for _, pd := range parents {
		parent := pd.dir
		ents, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !strings.HasPrefix(e.Name(), pd.prefix) || ownerAlive(strings.TrimPrefix(e.Name(), pd.prefix)) {
				continue
			}
			dir := filepath.Join(parent, e.Name())
			if c.v2 {
				_ = writeFile(dir, "cgroup.kill", 1)
			} else if fr := c.v1["freezer"]; fr != "" {
				fd := filepath.Join(fr, strings.TrimPrefix(e.Name(), pd.prefix))
				_ = writeFile(fd, "freezer.state", "FROZEN")
				killPids(readPids(filepath.Join(fd, "cgroup.procs")))
				_ = writeFile(fd, "freezer.state", "THAWED")
			}
			r := &runCgroup{c: c, name: e.Name(), dirs: map[string]string{"": dir}}
			killPids(readPids(filepath.Join(dir, "cgroup.procs")))
			if err := r.remove(); err != nil {
				log.Warn("sandbox: sweep leftover cgroup", "dir", dir, "err", err)
				continue
			}
			n++
		}
	}
	return n
}

func writeFile(dir, name string, v any) error {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	default:
		s = fmt.Sprint(x)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// keyedInt reads "key value" lines and returns value for key, -1 if absent.
func keyedInt(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
