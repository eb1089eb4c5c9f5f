package mcpserver

import (
	"fmt"
	"strings"
)

// A packItem is one ranked API ready to pack: its header and rendered
// components in priority order (S, E, M, C).
type packItem struct {
	name   string
	header string
	parts  []part
}

// size is the estimated tokens of the whole item.
func (it packItem) size() int { return tokens(it.body(it.parts)) }

func (it packItem) body(ps []part) string {
	var sb strings.Builder
	sb.WriteString("\n")
	sb.WriteString(it.header)
	for _, p := range ps {
		sb.WriteString("\n")
		sb.WriteString(p.quoted(it.name))
		sb.WriteString("\n")
	}
	return sb.String()
}

// packed is the outcome of [pack].
type packed struct {
	text       string
	included   []int          // item indices, in rank order
	omitted    []int          // item indices left out
	listed     []int          // the omitted items listed by handle
	partsShown map[int][]part // what each included item shows
	truncated  map[int]bool
	headerCut  map[int]bool // the item's header lines were cut too
	prevSigCut map[int]bool // the item's previous signature was left out
}

// minListed is how many omitted items pack keeps room to list by handle.
const minListed = 3

// pack fits items into budget tokens, in rank order, across components:
// whole items while they fit; if not even the first fits, its header
// (without the previous signature when S does not fit whole, cut to its
// first lines when it does not fit either) and components in priority order
// S, E, M, C, the last one cut at a line boundary with a note saying how to
// fetch it, and a line naming the components left out. The first item that
// does not fit and every item after it are omitted; a closing section lists
// as many of them by handle as fit and counts the rest. The text stays
// within budget by the stated estimator unless the intro and the first
// item's first lines alone exceed it.
func pack(intro string, items []packItem, budget int) packed {
	p := packed{partsShown: map[int][]part{}, truncated: map[int]bool{}, headerCut: map[int]bool{}, prevSigCut: map[int]bool{}}
	var sb strings.Builder
	sb.WriteString(intro)
	used := tokens(intro)
	for i, it := range items {
		if len(p.omitted) > 0 {
			p.omitted = append(p.omitted, i)
			continue
		}
		// Keep room for the closing section and a few handles of the rest.
		rest := closingOverhead
		for j := i + 1; j < min(len(items), i+1+minListed); j++ {
			rest += tokens(omittedLine(items[j]))
		}
		full := it.body(it.parts)
		if used+tokens(full)+rest <= budget {
			sb.WriteString(full)
			used += tokens(full)
			p.included = append(p.included, i)
			p.partsShown[i] = it.parts
			continue
		}
		if len(p.included) > 0 {
			p.omitted = append(p.omitted, i)
			continue
		}
		// The first item alone is too big: show as much as fits, cutting
		// its header too when even that does not fit (a long previous
		// signature or list of import paths), so the components get room.
		// The current signature is never cut while the previous one is
		// shown, or an agent may copy the old one: when S does not fit
		// whole, the previous signature goes first.
		room := budget - used - rest
		if len(it.parts) > 0 && it.parts[0].code == "S" && tokens(it.body(it.parts[:1])) > room {
			if h, ok := dropPreviousSignature(it.header); ok {
				it.header = h
				p.prevSigCut[i] = true
			}
		}
		// When S still does not fit, the long header lines (import paths,
		// provenance) go before S is cut.
		sCut := len(it.parts) > 0 && it.parts[0].code == "S" && tokens(it.body(it.parts[:1])) > room
		if tokens(it.body(nil)) > room || sCut {
			it.header = cutHeader(it)
			p.headerCut[i] = true
		}
		shown, leftOut, cut := fitParts(it, room)
		body := it.body(shown) + leftOutLine(it.name, leftOut)
		sb.WriteString(body)
		used += tokens(body)
		p.included = append(p.included, i)
		p.partsShown[i] = shown
		p.truncated[i] = cut || p.headerCut[i] || p.prevSigCut[i]
	}
	room := budget - used - closingOverhead
	for _, i := range p.omitted {
		c := tokens(omittedLine(items[i]))
		if c > room {
			break
		}
		p.listed = append(p.listed, i)
		room -= c
	}
	sb.WriteString(closing(items, p, used))
	p.text = sb.String()
	return p
}

// fitParts returns the parts of it that fit in room tokens together with
// its header, cutting the first part that does not fit at a line boundary,
// and the codes of the parts left out whole, whose [leftOutLine] the room
// includes.
func fitParts(it packItem, room int) (shown []part, leftOut []string, cut bool) {
	used := tokens(it.body(nil))
	for k, pt := range it.parts {
		t := tokens("\n" + pt.quoted(it.name) + "\n")
		if used+t <= room {
			shown = append(shown, pt)
			used += t
			continue
		}
		rest := partCodes(it.parts[k+1:])
		note := fmt.Sprintf("[… %s truncated to fit the budget; get_api(api_name=%q, components=[%q]) returns it whole]", pt.code, it.name, pt.code)
		frame := tokens("\n"+part{code: pt.code, note: note}.quoted(it.name)+"\n") + 2 // label, fences, note; the fence may grow
		left := room - used - frame - tokens(leftOutLine(it.name, rest)) - 4
		if left > 20 {
			shown = append(shown, part{code: pt.code, text: cutText(pt.text, left*4), note: note})
		} else {
			rest = partCodes(it.parts[k:])
		}
		return shown, rest, true
	}
	return shown, nil, false
}

// partCodes returns the codes of ps.
func partCodes(ps []part) []string {
	var cs []string
	for _, p := range ps {
		cs = append(cs, p.code)
	}
	return cs
}

// leftOutLine is the one line that names the components of an item left
// out whole for the budget, "" when none were.
func leftOutLine(name string, leftOut []string) string {
	if len(leftOut) == 0 {
		return ""
	}
	return fmt.Sprintf("[… left out to fit the budget: %s; get_api(api_name=%q, components=[\"%s\"]) returns them]\n",
		strings.Join(leftOut, ", "), name, strings.Join(leftOut, `","`))
}

// previousSignaturePrefix starts the item header line of a modified API's
// previous signature.
const previousSignaturePrefix = "previous signature: "

// dropPreviousSignature replaces the previous-signature line of header by
// a short note, and reports whether header had one.
func dropPreviousSignature(header string) (string, bool) {
	var sb strings.Builder
	found := false
	for line := range strings.SplitSeq(strings.TrimSuffix(header, "\n"), "\n") {
		if strings.HasPrefix(line, previousSignaturePrefix) {
			line, found = previousSignaturePrefix+"(left out to fit the budget)", true
		}
		sb.WriteString(line + "\n")
	}
	return sb.String(), found
}

// headerKeep is how many lines of an item header a cut header keeps:
// the title, the library and version, and the handle.
const headerKeep = 3

// cutHeader returns the header of it cut to its first headerKeep lines
// and its "import as" line, the long lines (other import paths,
// provenance, previous signature) left out for the components, with a
// note saying how to get them.
func cutHeader(it packItem) string {
	var sb strings.Builder
	for n, line := range strings.Split(strings.TrimSuffix(it.header, "\n"), "\n") {
		if n < headerKeep || strings.HasPrefix(line, "import as: ") {
			sb.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&sb, "[… header cut to fit the budget (import paths, provenance, previous signature); get_api(api_name=%q) with a larger max_tokens returns it]\n", it.name)
	return sb.String()
}

// cutText shortens s to at most n characters at a line boundary, closing
// an open ``` fence.
func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	t := string(r[:n])
	if i := strings.LastIndexByte(t, '\n'); i > 0 {
		t = t[:i]
	}
	if strings.Count(t, "```")%2 == 1 {
		t += "\n```"
	}
	return t
}

func omittedLine(it packItem) string {
	return fmt.Sprintf("- %s (~%d tokens)\n", handleLine(it), it.size())
}

// handleLine extracts the handle from the item header.
func handleLine(it packItem) string {
	for line := range strings.SplitSeq(it.header, "\n") {
		if h, ok := strings.CutPrefix(line, "handle: "); ok {
			return h
		}
	}
	return it.name
}

// closingOverhead bounds the tokens of closing's fixed text.
const closingOverhead = 40

// closing is the final section: the tokens of text used and the omitted
// items. It does not quote the text's share of the answer's budget (the
// intro states the caller's max_tokens).
func closing(items []packItem, p packed, used int) string {
	var sb strings.Builder
	if len(p.omitted) > 0 {
		fmt.Fprintf(&sb, "\n%d more result(s) did not fit the token budget; fetch with get_api(api_name=<handle>) or raise max_tokens:\n", len(p.omitted))
		for _, i := range p.listed {
			sb.WriteString(omittedLine(items[i]))
		}
		if n := len(p.omitted) - len(p.listed); n > 0 {
			fmt.Fprintf(&sb, "(and %d more not listed)\n", n)
		}
	} else {
		// Not "of budget": budget is the text's share found by fitAnswer
		// (0 when nothing fits), not the caller's max_tokens.
		fmt.Fprintf(&sb, "\n(text ~%d tokens)\n", used)
	}
	return sb.String()
}

// tokensField bounds the tokens of the manifest's "tokens" field, set
// after the answer is measured.
const tokensField = 8

// fitAnswer returns the text of the largest answer that stays within
// budget tokens together with its structured manifest, and the answer's
// total tokens (text + manifest JSON + tokensField). render packs the
// text within a text budget, fills the manifest and returns both; the
// total grows with the text budget, so the text budget is found by
// bisection over [0, budget] (a fixed share would either waste the budget
// or, when the manifest is large, leave no room to list the omitted
// results). The last call of render is the returned answer's; when no
// text budget fits, it is the one of text budget 0.
func fitAnswer(budget int, render func(textBudget int) (text string, manifest any)) (string, int) {
	measure := func(textBudget int) (string, int) {
		text, manifest := render(textBudget)
		return text, tokens(text) + tokens(mustJSON(manifest)) + tokensField
	}
	if text, total := measure(budget); total <= budget {
		return text, total
	}
	lo, hi := 0, budget // hi does not fit
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if _, total := measure(mid); total <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return measure(lo)
}
