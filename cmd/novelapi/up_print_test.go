package main

import (
	"bytes"
	"errors"
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

// up with libraries left out prints them with why and ends in a
// partialError (exit 3) naming each.
func TestUp_LeftOut(t *testing.T) {
	why := `Debian trixie has no package for "acres" (looked for python3-acres, acres); nearest: python3-acme`
	s := &pipeline.Summary{
		Libraries: map[string]*pipeline.LibrarySummary{"boltons": {Bundles: 3}, "acres": {Skipped: why}},
		LeftOut:   map[string]string{"acres": why},
	}
	var b bytes.Buffer
	printUp(&b, s)
	if !strings.Contains(b.String(), "acres left out: "+why) {
		t.Errorf("printUp:\n%s\nwant acres left out with why", b.String())
	}
	err := leftOut(s)
	if _, ok := errors.AsType[*partialError](err); !ok || err.Error() != "up: left out 1 of 2 libraries: acres ("+why+")" {
		t.Errorf("leftOut = %v; want a partialError naming acres", err)
	}
	if err := leftOut(&pipeline.Summary{Libraries: map[string]*pipeline.LibrarySummary{"boltons": {}}}); err != nil {
		t.Errorf("leftOut with none left out = %v; want nil", err)
	}
}
