package main

import (
	"bytes"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Chunk sizes of docs-mcp-server's Markdown pipeline, in characters
// (UTF-16 code units there; runes here): a GreedySplitter that merges the
// blocks of a SemanticMarkdownSplitter up to the preferred size and breaks
// at H1/H2 once a chunk has the minimum; text blocks are cut at the
// preferred size, code blocks and tables at the maximum.
const (
	minChunk       = 500
	preferredChunk = 1500
	maxChunk       = 5000
)

// A chunk is one row of the peer's store: its text and the heading path
// of its section.
type chunk struct {
	content string
	level   int      // heading level of its section (0: before any heading)
	path    []string // heading titles, outermost first
}

// A block is one top-level element of a page: a heading, a text block
// (paragraph, list, quote…), a code block or a table.
type block struct {
	kind  string // "heading", "text", "code" or "table"
	text  string
	level int
	path  []string
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// splitPage cuts a Markdown page as docs-mcp-server does: each top-level
// block is a section of the heading path it sits under; a heading starts a
// new path (H1–H6); text blocks longer than preferredChunk are cut at
// paragraphs, then lines, then words; code blocks and tables longer than
// maxChunk at lines; then consecutive pieces are merged greedily while the
// merge stays within preferredChunk, and never across an H1 or H2 once
// the chunk holds minChunk characters.
func splitPage(src string) []chunk {
	var pieces []chunk
	for _, b := range blocks([]byte(src)) {
		var parts []string
		switch b.kind {
		case "code", "table":
			parts = splitCode(b.text, maxChunk)
		default:
			parts = splitText(strings.TrimSpace(b.text), preferredChunk)
		}
		for _, p := range parts {
			pieces = append(pieces, chunk{content: p, level: b.level, path: b.path})
		}
	}
	return greedy(pieces)
}

// blocks lists the top-level blocks of src with their section.
func blocks(src []byte) []block {
	doc := markdown.Parser().Parse(text.NewReader(src))
	type section struct {
		level int
		path  []string
	}
	stack := []section{{}}
	cur := section{}
	var out []block
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			title := strings.Join(strings.Fields(string(lineText(n, src))), " ")
			for len(stack) > 1 && stack[len(stack)-1].level >= n.Level {
				stack = stack[:len(stack)-1]
			}
			path := slices.Clone(stack[len(stack)-1].path)
			cur = section{level: n.Level, path: append(path, title)}
			stack = append(stack, cur)
			out = append(out, block{"heading", strings.Repeat("#", n.Level) + " " + title, cur.level, cur.path})
		case *ast.FencedCodeBlock:
			code := strings.TrimSuffix(string(lineText(n, src)), "\n")
			out = append(out, block{"code", "```" + string(n.Language(src)) + "\n" + code + "\n```", cur.level, cur.path})
		case *ast.CodeBlock:
			code := strings.TrimSuffix(string(lineText(n, src)), "\n")
			out = append(out, block{"code", "```\n" + code + "\n```", cur.level, cur.path})
		case *extast.Table:
			out = append(out, block{"table", strings.TrimSpace(string(sourceOf(n, src))), cur.level, cur.path})
		case *ast.ThematicBreak:
			// Rendered as <hr>, whose inner HTML is empty: no block.
		default:
			if s := strings.TrimSpace(string(sourceOf(n, src))); s != "" {
				out = append(out, block{"text", s, cur.level, cur.path})
			}
		}
	}
	return out
}

// lineText joins the source lines of a leaf block.
func lineText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.Bytes()
}

// sourceOf returns the source span of a block: from the first line of its
// first leaf to the end of the last line of its last leaf.
func sourceOf(n ast.Node, src []byte) []byte {
	start, stop := -1, -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		lines := c.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			if start < 0 || seg.Start < start {
				start = seg.Start
			}
			stop = max(stop, seg.Stop)
		}
		return ast.WalkContinue, nil
	})
	if start < 0 {
		return nil
	}
	// Lines of nested blocks start after their markers ("- ", "> "): take
	// the whole first line.
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	return src[start:stop]
}

// runes is the length docs-mcp-server compares with its sizes.
func runes(s string) int { return len([]rune(s)) }

// splitText is TextContentSplitter: the whole text when it fits; else its
// paragraphs when each fits (not merged); else its lines merged up to size;
// else its words merged up to size. A word longer than size is cut hard at
// maxChunk (the recursive character splitter's last resort).
func splitText(s string, size int) []string {
	if runes(s) <= size {
		return []string{s}
	}
	words := strings.Fields(s)
	for _, w := range words {
		if runes(w) > size {
			return hardCut(s, maxChunk)
		}
	}
	if paras := splitKeep(s, "\n\n"); fits(paras, size) {
		return paras
	}
	if lines := splitKeep(s, "\n"); fits(lines, size) {
		return merge(lines, "", size)
	}
	return merge(words, " ", size)
}

// splitKeep cuts s after each sep, keeping the separator with the piece
// before it, and drops pieces of two characters or fewer.
func splitKeep(s, sep string) []string {
	var out []string
	for s != "" {
		i := strings.Index(s, sep)
		if i < 0 {
			i = len(s)
		} else {
			i += len(sep)
		}
		if runes(s[:i]) > 2 || sep == "\n" {
			out = append(out, s[:i])
		}
		s = s[i:]
	}
	return out
}

func fits(parts []string, size int) bool {
	for _, p := range parts {
		if runes(p) > size {
			return false
		}
	}
	return true
}

// merge joins consecutive parts with sep while the result stays within size.
func merge(parts []string, sep string, size int) []string {
	var out []string
	cur, have := "", false
	for _, p := range parts {
		if !have {
			cur, have = p, true
			continue
		}
		if runes(cur)+runes(p)+len(sep) <= size {
			cur += sep + p
			continue
		}
		out = append(out, cur)
		cur = p
	}
	if have {
		out = append(out, cur)
	}
	return out
}

func hardCut(s string, size int) []string {
	r := []rune(s)
	var out []string
	for len(r) > 0 {
		n := min(size, len(r))
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

// splitCode is CodeContentSplitter: lines accumulate while the fenced
// chunk stays within size; each chunk is fenced again with the block's
// info string. A table (no fence) is cut the same way at lines.
func splitCode(s string, size int) []string {
	if runes(s) <= size {
		return []string{s}
	}
	info, body, fenced := "", s, strings.HasPrefix(s, "```")
	if fenced {
		first, rest, _ := strings.Cut(s, "\n")
		info = strings.TrimPrefix(first, "```")
		body = strings.TrimSuffix(strings.TrimSuffix(rest, "```"), "\n")
	}
	wrap := func(lines []string) string {
		if !fenced {
			return strings.Join(lines, "\n")
		}
		return "```" + info + "\n" + strings.Join(lines, "\n") + "\n```"
	}
	var out, cur []string
	for _, line := range strings.Split(body, "\n") {
		if runes(wrap([]string{line})) > size {
			out = append(out, hardCut(line, size)...)
			continue
		}
		cur = append(cur, line)
		if runes(wrap(cur)) > size && len(cur) > 1 {
			out = append(out, wrap(cur[:len(cur)-1]))
			cur = []string{line}
		}
	}
	if len(cur) > 0 {
		out = append(out, wrap(cur))
	}
	return out
}

// greedy is GreedySplitter: it appends the next piece to the current
// chunk (on a new line) unless the sum would pass preferredChunk, or the
// current chunk holds minChunk and the next piece's section is an H1 or
// H2. A merged chunk's path is the deeper one when one contains the
// other, else their common prefix; its level is the smaller.
func greedy(pieces []chunk) []chunk {
	var out []chunk
	var cur *chunk
	for _, next := range pieces {
		if cur == nil {
			c := next
			cur = &c
			continue
		}
		if runes(cur.content)+runes(next.content) > preferredChunk ||
			(runes(cur.content) >= minChunk && (next.level == 1 || next.level == 2)) {
			out = append(out, *cur)
			c := next
			cur = &c
			continue
		}
		if !strings.HasSuffix(cur.content, "\n") {
			cur.content += "\n"
		}
		cur.content += next.content
		cur.path = mergePath(cur.level, cur.path, next.level, next.path)
		cur.level = min(cur.level, next.level)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

func mergePath(la int, a []string, lb int, b []string) []string {
	switch {
	case la == lb && slices.Equal(a, b):
		return a
	case len(a) < len(b) && slices.Equal(a, b[:len(a)]):
		return b
	case len(b) < len(a) && slices.Equal(b, a[:len(b)]):
		return a
	}
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return slices.Clone(a[:n])
}
