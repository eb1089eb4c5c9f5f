package index

import "strings"

// synonyms expands everyday phrasings into the terms API documentation
// uses, so that "running total" finds "cumulative sum". The table is a
// general vocabulary of numerical and data-frame programming, not a list
// of API names; both legs see the expanded query.
var synonyms = []struct{ phrase, terms string }{
	{"running total", "cumulative sum"},
	{"running sum", "cumulative sum"},
	{"running product", "cumulative product"},
	{"prefix sum", "cumulative sum"},
	{"length of", "norm"},
	{"euclidean length", "vector norm"},
	{"magnitude", "norm"},
	{"swap the last two axes", "transpose matrix"},
	{"swap axes", "transpose"},
	{"distinct", "unique"},
	{"how many times", "counts occurrences"},
	{"how often", "counts occurrences"},
	{"convert", "cast astype"},
	{"another dtype", "cast astype"},
	{"rate of change", "derivative"},
	{"slope", "derivative"},
	{"second derivatives", "hessian"},
	{"partial derivatives", "jacobian"},
	{"vector product", "cross product"},
	{"perpendicular", "cross product"},
	{"pairwise products", "outer product"},
	{"sum along the diagonal", "trace"},
	{"sum of the diagonal", "trace"},
	{"singular values", "svd singular values"},
	{"integrate", "integral quadrature"},
	{"integral", "integrate quadrature"},
	{"root of", "root zero"},
	{"zero of", "root"},
	{"minimise", "minimize minimum"},
	{"minimize", "minimum"},
	{"p-value", "pvalue"},
	{"p-values", "pvalues"},
	{"false discovery", "fdr benjamini hochberg"},
	{"survival", "survival censored logrank"},
	{"lag", "shift periods"},
	{"lagged", "shift periods"},
	{"if/elif/else", "case when condition"},
	{"first matching condition", "case when"},
	{"left-pad", "pad zfill"},
	{"centred", "center"},
	{"centered", "center"},
	{"begins with", "startswith"},
	{"ends with", "endswith"},
	{"substitute", "replace"},
	{"spectrogram", "stft short time fourier"},
	{"dictionary", "dict"},
	{"gaussian", "normal"},
	{"bell curve", "normal"},
	{"k-th smallest", "order statistic"},
	{"smoothing", "smooth spline"},
	{"infinite series", "sum series"},
	{"random variable", "distribution"},
}

// expandQuery appends the documentation terms of the phrases in q.
func expandQuery(q string) string {
	lq := strings.ToLower(q)
	var extra []string
	for _, s := range synonyms {
		if strings.Contains(lq, s.phrase) {
			extra = append(extra, s.terms)
		}
	}
	if len(extra) == 0 {
		return q
	}
	return q + "\n" + strings.Join(extra, " ")
}
