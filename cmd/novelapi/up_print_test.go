package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/pipeline"
)

// up's summary gives hybrid's ratio to paper(Full) and to the paper's
// shared-hit rate when both rows are there.
func TestPrintUp_Ratios(t *testing.T) {
	s := &pipeline.Summary{Retrieval: []index.EvalRow{
		{Retriever: index.Hybrid, N: 10, HitAt5: 0.9},
		{Retriever: index.Paper, Condition: "Full", N: 10, HitAt5: 0.6},
		{Retriever: index.Paper, Condition: index.PaperShared, N: 10, HitAt5: 0.45},
	}}
	var b bytes.Buffer
	printUp(&b, s)
	if !strings.Contains(b.String(), "hybrid hit@5 / paper(Full) 1.50x; / paper shared-hit") || !strings.Contains(b.String(), " 2.00x") {
		t.Errorf("printUp:\n%s\nwant both ratios (1.50x, 2.00x)", b.String())
	}
}
