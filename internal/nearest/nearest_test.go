package nearest

import (
	"slices"
	"testing"
)

func TestBest(t *testing.T) {
	cands := []Scored{{"numpy.vecmat", 2}, {"numpy.matvec", 1}, {"numpy.vecdot", 2}, {"np.mat", 2}, {"numpy.matmul", 5}}
	got := Best(cands, 3)
	want := []string{"numpy.matvec", "np.mat", "numpy.vecdot"}
	if !slices.Equal(got, want) {
		t.Fatalf("Best = %q, want %q", got, want)
	}
	if got := Best(nil, 3); len(got) != 0 {
		t.Fatalf("Best(nil) = %q", got)
	}
	if got := Best(cands, 0); len(got) != 0 {
		t.Fatalf("Best(n=0) = %q", got)
	}
}
