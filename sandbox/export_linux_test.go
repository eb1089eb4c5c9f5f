package sandbox

import "context"

// RunUnchecked runs spec under b without checkSpec's checks, so tests can
// start runs that Run refuses (a memory limit too small for bwrap itself).
func (b *Bwrap) RunUnchecked(ctx context.Context, spec Spec) (Result, error) {
	return b.run(ctx, spec)
}
