package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// DrainTimeout bounds how long [Server.ServeStdio] keeps answering after
// stdin reaches EOF: requests read before EOF are answered unless this much
// time passes first (a check_code call runs for seconds, not minutes).
const DrainTimeout = 2 * time.Minute

// drain sits between the stdio transport and the process's stdin and
// stdout. It counts JSON-RPC requests (messages with both "method" and a
// non-null "id") read from stdin and responses (an "id" and no "method")
// written to stdout, and passes EOF on to the transport only once every
// request read has been answered, ctx has ended, or DrainTimeout has passed
// since EOF.
//
// mcp-go's StdioServer.Listen cancels in-flight requests as soon as its
// input ends, so a client that writes its requests and closes stdin (a
// script piping a file into `novelapi serve`) lost the answers to calls
// still queued; every request must get an answer on stdout.
type drain struct {
	ctx     context.Context
	in      io.Reader
	out     io.Writer
	partial []byte // bytes of an incomplete input line
	eof     bool   // stdin ended; EOF is returned once nothing is pending

	mu      sync.Mutex
	pending map[string]int // request id (canonical JSON) → requests unanswered
	idle    chan struct{}  // closed while pending is empty
}

// newDrain wraps in and out; see [drain].
func newDrain(ctx context.Context, in io.Reader, out io.Writer) *drain {
	d := &drain{ctx: ctx, in: in, out: out, pending: map[string]int{}, idle: make(chan struct{})}
	close(d.idle)
	return d
}

// Read reads from stdin, counting each complete request line; at EOF it
// ends a last unterminated line with a newline (mcp-go would drop it) and
// waits until nothing is pending (see [drain]).
func (d *drain) Read(p []byte) (int, error) {
	if d.eof {
		d.wait()
		return 0, io.EOF
	}
	n, err := d.in.Read(p)
	for rest := p[:n]; len(rest) > 0; { // only the new bytes are searched
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			d.partial = append(d.partial, rest...)
			break
		}
		if len(d.partial) > 0 {
			d.see(append(d.partial, rest[:i]...), true)
			d.partial = d.partial[:0]
		} else {
			d.see(rest[:i], true)
		}
		rest = rest[i+1:]
	}
	if err != io.EOF {
		return n, err
	}
	if len(d.partial) > 0 {
		if n == len(p) { // no room for the newline: the next Read adds it
			return n, nil
		}
		p[n] = '\n'
		n++
		d.see(d.partial, true)
		d.partial = nil
	}
	d.eof = true
	if n > 0 { // the transport must read these bytes before EOF
		return n, nil
	}
	d.wait()
	return 0, io.EOF
}

// Write writes one message to stdout and, once written, counts a response.
func (d *drain) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	if err == nil {
		d.see(p, false)
	}
	return n, err
}

// see counts line as a request (incoming) or a response (outgoing).
func (d *drain) see(line []byte, incoming bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &msg) != nil {
		return
	}
	var id any
	if json.Unmarshal(msg.ID, &id) != nil || id == nil {
		return
	}
	key, _ := json.Marshal(id) // 5 and 5.0 are the same id
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case incoming && msg.Method != "":
		if len(d.pending) == 0 {
			d.idle = make(chan struct{})
		}
		d.pending[string(key)]++
	case !incoming && msg.Method == "" && d.pending[string(key)] > 0:
		if d.pending[string(key)]--; d.pending[string(key)] == 0 {
			delete(d.pending, string(key))
			if len(d.pending) == 0 {
				close(d.idle)
			}
		}
	}
}

// wait blocks until no request is pending, ctx ends or DrainTimeout passes.
func (d *drain) wait() {
	d.mu.Lock()
	idle := d.idle
	d.mu.Unlock()
	t := time.NewTimer(DrainTimeout)
	defer t.Stop()
	select {
	case <-idle:
	case <-d.ctx.Done():
	case <-t.C:
	}
}
