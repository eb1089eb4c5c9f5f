package main

import (
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// A page is one API's documentation page as the peer scrapes it: its
// title, URL and Markdown.
type page struct {
	api, library string
	title, url   string
	markdown     string
}

// pageOf renders bundle b as the page a Sphinx reference site gives an
// API, converted to Markdown: the name as H1, the call signature, the
// description (M), then "Parameters" (S), "Examples" (E, fenced) and, when
// withSource, "Source" (C, fenced) as H2 sections. The URL is the
// reference path of the API ("numpy/reference/numpy.unstack.html").
func pageOf(b *bundles.Bundle, withSource bool) page {
	var sb strings.Builder
	sb.WriteString("# " + b.APIName + "\n\n")
	sb.WriteString(signature(b) + "\n\n")
	if m := bundles.RenderMechanism(b.Mechanism); m != "" {
		sb.WriteString(m + "\n\n")
	}
	if len(b.SParam) > 0 {
		sb.WriteString("## Parameters\n\n")
		for _, p := range b.SParam {
			sb.WriteString("- **" + p.Name + "**")
			if p.Type != nil && *p.Type != "" {
				sb.WriteString(" (" + *p.Type + ")")
			}
			if p.Default != nil && *p.Default != "" {
				sb.WriteString(", default " + *p.Default)
			}
			if d := strings.Join(strings.Fields(p.Description), " "); d != "" {
				sb.WriteString(": " + d)
			}
			sb.WriteString("\n")
		}
		sb.WriteString("\n")
	}
	var ex []string
	for _, e := range b.Examples {
		if e.Served() {
			ex = append(ex, e.Code)
		}
	}
	if len(ex) > 0 {
		sb.WriteString("## Examples\n\n")
		for _, code := range ex {
			sb.WriteString(fence(code, "python") + "\n\n")
		}
	}
	if withSource && b.Implementation != "" {
		sb.WriteString("## Source\n\n" + fence(b.Implementation, "python") + "\n")
	}
	return page{
		api: b.APIName, library: b.Library,
		title:    b.APIName,
		url:      b.Library + "/reference/" + b.APIName + ".html",
		markdown: sb.String(),
	}
}

// signature is the call line of the page: name(p1, p2=default, ...).
func signature(b *bundles.Bundle) string {
	ps := make([]string, len(b.SParam))
	for i, p := range b.SParam {
		ps[i] = p.Name
		if p.Default != nil && *p.Default != "" {
			ps[i] += "=" + *p.Default
		}
	}
	return b.APIName + "(" + strings.Join(ps, ", ") + ")"
}

// fence wraps code in a fenced block whose backtick run is longer than
// any run inside it.
func fence(code, lang string) string {
	run, longest := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + f
}
