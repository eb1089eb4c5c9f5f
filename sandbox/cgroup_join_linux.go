package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
)

// Starting a run inside its cgroup cheaply.
//
// Moving another process into a cgroup (writing its pid to cgroup.procs)
// takes the kernel's global cgroup_threadgroup_rwsem for writing, which
// waits for an RCU grace period whenever the lock was idle, paid once per
// run because runs are further apart than a grace period (§5). A
// single-threaded process that moves itself by
// writing "0" to a v1 hierarchy's tasks file skips that lock (Linux
// kernel/cgroup/cgroup.c, cgroup_procs_write_start: "If we migrate a single
// thread ... the thread is current ... we can skip the global lock"; on
// older kernels the write is merely as slow as before). So on v1 the
// bubblewrap launcher is started through a shell that joins the run's
// cgroup in every hierarchy and then execs bwrap, whose children are born
// inside it.

// tasksFiles returns the v1 tasks file of every hierarchy of the run, nil
// on v2 (where only cgroup.threads takes "0", and only in threaded
// subtrees).
func (r *runCgroup) tasksFiles() []string {
	if _, v2 := r.dirs[""]; v2 {
		return nil
	}
	files := make([]string, 0, len(r.dirs))
	for _, d := range r.dirs {
		files = append(files, filepath.Join(d, "tasks"))
	}
	slices.Sort(files)
	return files
}

// joinScript returns a sh script that moves the shell into the cgroups of
// tasksFiles (each write moves only the writing thread, and sh has one)
// and then execs "$0" "$@"; if a write fails, sh reports it on stderr and
// exits 2 without exec'ing. It returns "" when files is empty.
func joinScript(files []string) string {
	if len(files) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString("echo 0 >")
		sb.WriteString(shQuote(f))
		sb.WriteString(" && ")
	}
	sb.WriteString(`exec "$0" "$@"`)
	return sb.String()
}

// shQuote quotes s for sh as one word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// has reports whether pid is a member of the run's cgroup.
func (r *runCgroup) has(pid int) bool {
	return slices.Contains(r.procs(), pid)
}

// empty reports whether no process is left in the run's cgroup. Only the
// harness moves processes in, so an empty run cgroup stays empty.
func (r *runCgroup) empty() bool {
	return len(r.procs()) == 0
}
