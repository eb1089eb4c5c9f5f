package bundles

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlPage reads a page Sphinx rendered: its code blocks (the <pre> of each
// <div class="highlight-LANG ...">, LANG its language), its text, and, for
// a release-notes page, its entries (the text of each <li>, and of each <p>
// outside lists, under the nearest heading that carries a version, or the
// file name's). Lines of blocks count from 1 in the block's order, as HTML
// has no source lines worth citing: Line is the block's ordinal.
func htmlPage(text string, notes bool, file string) (blocks []docBlock, prose string, entries []ReleaseNote) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return nil, "", nil
	}
	fileVersion := ""
	if m := versionRE.FindStringSubmatch(file[strings.LastIndexByte(file, '/')+1:]); m != nil {
		fileVersion = m[1]
	}
	version := fileVersion
	var sb strings.Builder
	var walk func(n *html.Node, inList bool)
	walk = func(n *html.Node, inList bool) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Nav, atom.Head:
				return
			case atom.Div:
				if lang, ok := highlightLang(n); ok {
					if pre := findAtom(n, atom.Pre); pre != nil {
						if code := strings.Trim(textOf(pre), "\n"); code != "" {
							blocks = append(blocks, docBlock{lang: lang, code: code, line: len(blocks) + 1})
						}
					}
					return
				}
			case atom.Dt:
				// An object description (<dt class="sig sig-object py"
				// id="django.db.models.query.QuerySet.update_or_create">)
				// names the API the page documents by its dotted path,
				// which its visible text shows only in part.
				if id := attr(n, "id"); strings.Contains(id, ".") {
					sb.WriteString(id)
					sb.WriteByte(' ')
				}
			case atom.H1, atom.H2, atom.H3, atom.H4:
				if notes {
					version = headingVersion(fileVersion, version, textOf(n))
				}
			case atom.Li, atom.P:
				if notes && !(n.DataAtom == atom.P && inList) {
					if t := strings.Join(strings.Fields(textOf(n)), " "); len(strings.Fields(t)) >= 4 {
						entries = append(entries, ReleaseNote{Version: version, Text: t, File: file,
							marked: strings.Join(strings.Fields(markedTextOf(n)), " ")})
					}
				}
				if n.DataAtom == atom.Li {
					inList = true
				}
			}
		}
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			sb.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inList)
		}
	}
	walk(doc, false)
	return blocks, strings.ToLower(sb.String()), entries
}

// attr returns the value of n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// highlightLang returns LANG of a Sphinx code block <div
// class="highlight-LANG notranslate">.
func highlightLang(n *html.Node) (string, bool) {
	for _, a := range n.Attr {
		if a.Key != "class" {
			continue
		}
		for c := range strings.FieldsSeq(a.Val) {
			if lang, ok := strings.CutPrefix(c, "highlight-"); ok {
				if lang == "default" || lang == "ipython3" || lang == "ipython" {
					lang = "python"
				}
				return lang, true
			}
		}
	}
	return "", false
}

func findAtom(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findAtom(c, a); f != nil {
			return f
		}
	}
	return nil
}

// markedTextOf returns the text under n with the text of each code span
// (<code>, and <em class="xref ..."> that Sphinx renders for a
// cross-reference it could not resolve) in backticks.
func markedTextOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Code || n.DataAtom == atom.Em && strings.Contains(attr(n, "class"), "xref")) {
			sb.WriteString("`" + strings.ReplaceAll(textOf(n), "`", "") + "`")
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}

// textOf returns the text under n, entities decoded.
func textOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}
