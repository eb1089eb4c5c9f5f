package index

import (
	"bytes"
	"encoding/gob"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomizedSVD recovers the top singular triplets of a low-rank sparse
// matrix as a full SVD computes them.
func TestRandomizedSVD(t *testing.T) {
	const rows, cols, rank, k = 80, 50, 10, 6
	rng := rand.New(rand.NewPCG(1, 2))
	// a = Σ_r s_r x_r y_rᵀ with sparse factors, stored both ways.
	dense := mat.NewDense(rows, cols, nil)
	for r := range rank {
		s := float64(rank - r)
		x, y := make([]float64, rows), make([]float64, cols)
		for i := range x {
			if rng.IntN(3) == 0 {
				x[i] = rng.NormFloat64()
			}
		}
		for j := range y {
			if rng.IntN(3) == 0 {
				y[j] = rng.NormFloat64()
			}
		}
		for i := range rows {
			for j := range cols {
				dense.Set(i, j, dense.At(i, j)+s*x[i]*y[j])
			}
		}
	}
	a := &csr{rows: rows, cols: cols, ptr: []int{0}}
	for i := range rows {
		for j := range cols {
			if v := dense.At(i, j); v != 0 {
				a.idx = append(a.idx, int32(j))
				a.val = append(a.val, v)
			}
		}
		a.ptr = append(a.ptr, len(a.idx))
	}

	var full mat.SVD
	if !full.Factorize(dense, mat.SVDThin) {
		t.Fatal("full SVD failed")
	}
	wantS := full.Values(nil)
	var wantV mat.Dense
	full.VTo(&wantV)

	v, s, err := randomizedSVD(t.Context(), a, k, 4, 2, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := v.Dims(); r != cols || c != k || len(s) != k {
		t.Fatalf("got V %d×%d and %d values; want %d×%d and %d", r, c, len(s), cols, k, k)
	}
	for d := range k {
		if math.Abs(s[d]-wantS[d]) > 1e-8*wantS[0] {
			t.Errorf("singular value %d = %g; want %g", d, s[d], wantS[d])
		}
		dot := mat.Dot(v.ColView(d), wantV.ColView(d))
		if math.Abs(math.Abs(dot)-1) > 1e-6 {
			t.Errorf("right singular vector %d: |cos| with the full SVD's = %g; want 1", d, math.Abs(dot))
		}
	}
}

// A model file holds the projection as little-endian bytes; files written
// before that, with the float slice itself, still load, to the same model.
func TestLoadLSA_BothProjectionEncodings(t *testing.T) {
	m := &lsaModel{Format: lsaFormat, K: 2, HashDim: 4, HashWeight: 0.5, Terms: []string{"a", "b"}, IDF: []float32{1, 2}, Proj: []float32{0.5, -1.25, 3, 1e-7}, Sigma: []float64{2, 1}, Units: 3}
	newFile, err := encodeLSA(m)
	if err != nil {
		t.Fatal(err)
	}
	var old bytes.Buffer
	if err := gob.NewEncoder(&old).Encode(m); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"bytes": newFile, "floats": old.Bytes()} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, lsaFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := loadLSA(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(e.model.Proj, m.Proj) || !slices.Equal(e.model.Terms, m.Terms) || e.model.ProjLE != nil {
			t.Errorf("%s: loaded %+v; want %+v", name, e.model, m)
		}
	}
}
