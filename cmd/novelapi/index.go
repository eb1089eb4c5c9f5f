package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// embedderFlags select the index embedder (shared by index, search and
// eval retrieval).
type embedderFlags struct {
	kind, url, model string
	dim              int
}

func (f *embedderFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kind, "embedder", "", "embedder: lsa (built-in, default: hashed features plus LSA fitted on the bundles at build time), hash (built-in, hashed features only), ollama or openai (OpenAI-compatible /embeddings)")
	cmd.Flags().StringVar(&f.url, "embed-url", "", "embedding endpoint base URL (ollama default http://localhost:11434/api)")
	cmd.Flags().StringVar(&f.model, "embed-model", "", "embedding model name for ollama/openai")
	cmd.Flags().IntVar(&f.dim, "embed-dim", 0, fmt.Sprintf("lsa: latent dimensions (default %d; the vectors add the %d hashed features); hash: vector length (default %d); %d to %d", index.DefaultLSAK, index.DefaultHashDim, index.DefaultHashDim, minEmbedDim, maxEmbedDim))
}

// Bounds of --embed-dim: fewer dimensions cannot tell APIs apart, more make
// the vectors (and the LSA model, terms × dimensions) gigabytes for no gain
// (docs/retrieval.md measured 96–384).
const (
	minEmbedDim = 8
	maxEmbedDim = 4096
)

// embedder returns the selected embedder, or nil for the default (the
// built-in LSA embedder, or the one an index records).
func (f *embedderFlags) embedder() (index.Embedder, error) {
	if f.dim != 0 && (f.dim < minEmbedDim || f.dim > maxEmbedDim) {
		return nil, usagef("--embed-dim %d: want %d to %d (0 or unset for the default)", f.dim, minEmbedDim, maxEmbedDim)
	}
	switch f.kind {
	case "":
		if f.dim > 0 {
			return index.NewLSAEmbedder(index.LSAConfig{K: f.dim}), nil
		}
		return nil, nil
	case "hash":
		return index.NewHashEmbedder(f.dim), nil
	case "lsa":
		return index.NewLSAEmbedder(index.LSAConfig{K: f.dim}), nil
	case "ollama":
		if f.model == "" {
			return nil, usagef("--embedder ollama needs --embed-model")
		}
		return index.NewOllamaEmbedder(f.model, f.url), nil
	case "openai":
		if f.model == "" || f.url == "" {
			return nil, usagef("--embedder openai needs --embed-url and --embed-model")
		}
		return index.NewOpenAIEmbedder(f.url, "", f.model), nil
	}
	return nil, usagef("unknown --embedder %q (valid: hash, lsa, ollama, openai)", f.kind)
}

// indexDirOr returns dir, or $NOVELAPI_HOME/index (where up builds it and
// serve looks) when dir is "". It runs after the flags are parsed, so
// --home is honoured.
func indexDirOr(g *globals, dir string) string {
	if dir != "" {
		return dir
	}
	return filepath.Join(g.home, "index")
}

func newIndexCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build, extend and inspect the retrieval index",
	}
	cmd.AddCommand(newIndexBuildCmd(g, false), newIndexBuildCmd(g, true), newIndexStatsCmd(g))
	return cmd
}

// readBundleFiles reads and concatenates bundle files; a corrupt line
// fails with its file and line unless skipBad, when it is skipped and
// recorded in skipped (nil when none was).
func readBundleFiles(g *globals, paths []string, skipBad bool) (all []bundles.Bundle, skipped *index.Omitted, err error) {
	for _, p := range paths {
		bs, st, err := bundles.ReadBundles(p, jsonl.ReadOptions{SkipBad: skipBad})
		if err != nil {
			return nil, nil, fmt.Errorf("read bundles: %w (nothing indexed; the last good index is still served)", err)
		}
		if st.Skipped > 0 {
			if skipped == nil {
				skipped = &index.Omitted{}
			}
			skipped.Count += st.Skipped
			names := skippedNames(p, st.Bad)
			for i, pe := range st.Bad {
				g.log.Warn("skipped bad bundle line; the index will say it is partial", "api", names[i], "err", pe)
				if len(skipped.Items) < index.MaxOmittedItems {
					item := fmt.Sprintf("%s:%d", filepath.Base(p), pe.Line)
					if names[i] != "" {
						item = names[i] + " (" + item + ")"
					}
					skipped.Items = append(skipped.Items, item)
				}
			}
		}
		all = append(all, bs...)
	}
	return all, skipped, nil
}

// apiNameField finds the api_name of a bundle line that does not decode.
var apiNameField = regexp.MustCompile(`"api_name"\s*:\s*"([A-Za-z0-9_.]{1,200})"`)

// skippedNames returns, for each bad line of the file at path, the
// api_name it names ("" when it names none that can be read).
func skippedNames(path string, bad []*jsonl.ParseError) []string {
	names := make([]string, len(bad))
	want := map[int]int{} // line → index in bad
	for i, pe := range bad {
		want[pe.Line] = i
	}
	f, err := os.Open(path)
	if err != nil {
		return names
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for line := 1; len(want) > 0; line++ {
		text, err := r.ReadString('\n')
		if i, ok := want[line]; ok {
			if m := apiNameField.FindStringSubmatch(text[:min(len(text), 1<<16)]); m != nil {
				names[i] = m[1]
			}
			delete(want, line)
		}
		if err != nil {
			break
		}
	}
	return names
}

func newIndexBuildCmd(g *globals, add bool) *cobra.Command {
	var (
		files   []string
		dir     string
		skipBad bool
		jsonOut bool
		ef      embedderFlags
	)
	use, short := "build", "Build a new index from bundle files (atomic: readers of the old index keep working)"
	if add {
		use, short = "add", "Add or replace bundles in an existing index (atomic; only the new bundles are embedded)"
	}
	cmd := &cobra.Command{
		Use:   use + " --bundles FILE... [--index DIR]",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(files) == 0 {
				return usagef("index %s needs --bundles FILE (repeatable or comma-separated)", use)
			}
			emb, err := ef.embedder()
			if err != nil {
				return err
			}
			bs, skipped, err := readBundleFiles(g, files, skipBad)
			if err != nil {
				return err
			}
			if len(bs) == 0 {
				return fmt.Errorf("no bundles in %s (nothing indexed; the last good index is still served)", strings.Join(files, ", "))
			}
			cfg := index.BuildConfig{Embedder: emb, Logger: g.log, Skipped: skipped}
			cfg.Progress = progressWriter(g)
			run := index.Build
			if add {
				run = index.Add
			}
			dir = indexDirOr(g, dir)
			m, err := run(cmd.Context(), dir, bs, cfg)
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(g.stdout, m)
			}
			fmt.Fprintf(g.stdout, "%s: %d bundles, %d units, embedder %s (dim %d), generation %s\n",
				dir, m.Bundles, m.Units, m.Embedder.ID, m.Embedder.Dim, m.Generation)
			if m.Skipped != nil {
				fmt.Fprintf(g.stdout, "PARTIAL: %s\n", skippedLine(m.Skipped))
			}
			if m.Cut != nil {
				fmt.Fprintf(g.stdout, "CUT: the text of %d bundle component(s) was over the index limits and cut, with a marker in the text: %s\n",
					m.Cut.Count, strings.Join(m.Cut.Items[:min(len(m.Cut.Items), 5)], "; "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&files, "bundles", nil, "bundles.jsonl file(s)")
	f.StringVar(&dir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.BoolVar(&skipBad, "skip-bad", false, "skip malformed bundle lines (with a warning) instead of failing")
	f.BoolVar(&jsonOut, "json", false, "print the manifest as JSON")
	ef.register(cmd)
	return cmd
}

func newIndexStatsCmd(g *globals) *cobra.Command {
	var (
		dir     string
		jsonOut bool
		ef      embedderFlags
	)
	cmd := &cobra.Command{
		Use:   "stats [--index DIR] [--json]",
		Short: "Report counts per library, version, component and novelty type, and the embedder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			emb, err := ef.embedder()
			if err != nil {
				return err
			}
			ix, err := index.Open(indexDirOr(g, dir), index.OpenOptions{Embedder: emb, Logger: g.log})
			if err != nil {
				return err
			}
			defer ix.Close()
			s := ix.Stats()
			if jsonOut {
				return writeJSON(g.stdout, s)
			}
			w := g.stdout
			fmt.Fprintf(w, "index %s (%s, built %s)\n", s.Dir, s.Generation, s.Created.Format("2006-01-02 15:04:05Z"))
			fmt.Fprintf(w, "bundles %d, units %d, lexical scoring %s\n", s.Bundles, s.Units, s.Scoring)
			fmt.Fprintf(w, "embedder %s (dim %d), vector search %s\n", s.Embedder.ID, s.Embedder.Dim, map[bool]string{true: "on", false: "off"}[s.VectorEnabled])
			if s.LSA != nil {
				fmt.Fprintf(w, "LSA model: %d latent dimensions fitted on %d units, %d terms\n", s.LSA.K, s.LSA.Units, s.LSA.Terms)
				if s.LSA.Terms > 0 && s.LSA.Fitted > 0 && s.LSA.Fitted < s.LSA.K {
					fmt.Fprintf(w, "notice: only %d of the %d latent dimensions could be fitted (at most the units and terms fitted on); the others are zero and only make the vectors longer (--embed-dim %d or less avoids them)\n", s.LSA.Fitted, s.LSA.K, s.LSA.Fitted)
				}
				if s.LSA.Terms == 0 {
					fmt.Fprintln(w, "notice: the LSA model has no terms (too few units to fit on); the vectors use the hashed features only")
				}
			}
			for _, lib := range slices.Sorted(mapsKeys(s.Libraries)) {
				var vs []string
				for _, v := range slices.Sorted(mapsKeys(s.Versions[lib])) {
					vs = append(vs, fmt.Sprintf("%s: %d", v, s.Versions[lib][v]))
				}
				fmt.Fprintf(w, "  %-12s %5d  (%s)\n", lib, s.Libraries[lib], strings.Join(vs, ", "))
			}
			fmt.Fprintf(w, "components: S %d, E %d, M %d, C %d\n", s.Components["S"], s.Components["E"], s.Components["M"], s.Components["C"])
			fmt.Fprintf(w, "novelty: new %d, modified %d\n", s.Novelty["new"], s.Novelty["modified"])
			if s.Skipped != nil {
				fmt.Fprintf(w, "PARTIAL: %s\n", skippedLine(s.Skipped))
			}
			for _, n := range s.Notices {
				fmt.Fprintf(w, "notice: %s\n", n)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	ef.register(cmd)
	return cmd
}

// skippedLine says what a partial index lacks, in one line.
func skippedLine(s *index.Omitted) string {
	line := fmt.Sprintf("%d bad bundle line(s) were skipped at build and are missing from this index", s.Count)
	if len(s.Items) > 0 {
		line += ": " + strings.Join(s.Items[:min(len(s.Items), 10)], ", ")
		if more := s.Count - min(len(s.Items), 10); more > 0 {
			line += fmt.Sprintf(" (+%d more)", more)
		}
	}
	return line
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
