package debenv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
)

// A stageMark is a kind of output line a build stage counts for progress.
type stageMark struct{ prefix, verb string }

// debootstrapMarks are debootstrap's progress lines, in the order its
// stages run.
var debootstrapMarks = []stageMark{
	{"I: Retrieving ", "retrieving"},
	{"I: Extracting ", "extracting"},
	{"I: Unpacking ", "unpacking"},
	{"I: Configuring ", "configuring"},
}

// aptMarks are apt-get's and dpkg's progress lines, in the order its
// stages run.
var aptMarks = []stageMark{
	{"Get:", "retrieving"},
	{"Unpacking ", "unpacking"},
	{"Setting up ", "configuring"},
}

// A stage is one program a build runs (debootstrap; apt inside the new
// root filesystem).
type stage struct {
	Label    string // for progress and errors, e.g. "debootstrap sid"
	Path     string
	Args     []string
	LogPath  string // receives the program's whole output
	Marks    []stageMark
	Progress io.Writer // a spinner; nil means none
	Log      *slog.Logger
}

// run runs the stage's program in its own process group, writing its
// output to LogPath and counting its marks into a spinner, and returns the
// last 40 lines of its output. A failure is an error wrapping the exit
// status; the caller turns the output into a message. On cancellation the
// group gets SIGTERM first, so debootstrap's exit trap unmounts /proc, /sys
// and device binds in the target, and SIGKILL 10 s later.
func (st stage) run(ctx context.Context) (tail string, err error) {
	logf, err := os.Create(st.LogPath)
	if err != nil {
		return "", err
	}
	defer logf.Close()

	cmd := exec.CommandContext(ctx, st.Path, st.Args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C.UTF-8",
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var exited atomic.Bool
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		err := syscall.Kill(-pgid, syscall.SIGTERM)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		time.AfterFunc(10*time.Second, func() {
			if !exited.Load() {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		})
		return err
	}
	cmd.WaitDelay = 15 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw

	var bar *progressbar.ProgressBar
	if st.Progress != nil {
		bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(st.Progress),
			progressbar.OptionSetDescription(st.Label), progressbar.OptionSpinnerType(14),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	done := make(chan []string)
	go func() {
		var lines []string
		counts := map[string]int{}
		cur, curIdx := "", -1
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if lines = append(lines, line); len(lines) > 40 {
				lines = lines[1:]
			}
			for i, mk := range st.Marks {
				if !strings.HasPrefix(line, mk.prefix) {
					continue
				}
				counts[mk.verb]++
				if i > curIdx { // stages only move forward in the log
					cur, curIdx = mk.verb, i
					if st.Log != nil {
						st.Log.Info(st.Label, "stage", cur)
					}
				}
				if bar != nil {
					bar.Describe(fmt.Sprintf("%s: %s (retrieved %d, unpacked %d, configured %d)",
						st.Label, cur, counts["retrieving"], counts["unpacking"], counts["configuring"]))
					bar.Add(1)
				}
			}
		}
		io.Copy(io.Discard, pr)
		done <- lines
	}()
	err = cmd.Run()
	exited.Store(true)
	pw.Close()
	lines := <-done
	if bar != nil {
		bar.Finish()
	}
	out := strings.Join(lines, "\n")
	if err != nil && ctx.Err() != nil {
		return out, fmt.Errorf("%s interrupted: %w", st.Label, context.Cause(ctx))
	}
	return out, err
}

// runDebootstrap runs debootstrap with args, writing its output to logPath,
// and turns a failure into an error quoting the end of its output.
func runDebootstrap(ctx context.Context, args []string, suite, logPath string, progress io.Writer, log *slog.Logger) error {
	path, err := lookTool("debootstrap")
	if err != nil {
		return errors.New("debootstrap not found: install it with `apt-get install debootstrap`")
	}
	st := stage{Label: "debootstrap " + suite, Path: path, Args: args, LogPath: logPath,
		Marks: debootstrapMarks, Progress: progress, Log: log}
	out, err := st.run(ctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if missing := parseMissingDebs(out); len(missing) > 0 {
		return &MissingPackagesError{Suite: suite, Packages: missing}
	}
	return fmt.Errorf("debootstrap %s: %v; last output:\n%s", suite, err, out)
}
