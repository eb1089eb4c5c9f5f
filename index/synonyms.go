package index

import "strings"

// synonyms expands everyday phrasings into the terms API documentation
// uses, so that "running total" finds "cumulative sum". The table is a
// general vocabulary of numerical and data-frame programming (the words
// of textbooks and of the numpy, scipy and pandas glossaries), not a list
// of API names, and it is not fitted to a query file: entries that quoted
// bench/queries/nl.jsonl were removed, and no entry was added after
// looking at a failed query. Both legs see the expanded query. A phrase
// matches anywhere in the lowercased query.
var synonyms = []struct{ phrase, terms string }{
	// running aggregates
	{"running total", "cumulative sum"},
	{"running sum", "cumulative sum"},
	{"running product", "cumulative product"},
	{"prefix sum", "cumulative sum"},
	{"running max", "cumulative maximum"},
	{"running min", "cumulative minimum"},
	{"moving average", "rolling window mean"},
	{"sliding window", "rolling window"},
	// linear algebra
	{"magnitude", "norm"},
	{"euclidean length", "norm"},
	{"vector product", "cross product"},
	{"pairwise products", "outer product"},
	{"diagonal sum", "trace"},
	{"swap axes", "transpose"},
	{"flip the axes", "transpose"},
	{"pseudo inverse", "pinv"},
	// sets and counting
	{"distinct", "unique"},
	{"deduplicate", "duplicates unique"},
	{"how many times", "counts occurrences"},
	{"how often", "counts occurrences frequency"},
	// types
	{"another dtype", "cast astype"},
	{"data type", "dtype"},
	// calculus and numerics
	{"rate of change", "derivative"},
	{"slope", "derivative"},
	{"gradient", "derivative jacobian"},
	{"second derivatives", "hessian"},
	{"partial derivatives", "jacobian"},
	{"integrate", "integral quadrature"},
	{"area under", "integral quadrature"},
	{"root of", "root zero"},
	{"zero of", "root"},
	{"solve f(x)", "root"},
	{"minimise", "minimize minimum"},
	{"minimize", "minimum"},
	{"maximise", "maximize maximum"},
	{"curve fitting", "fit least squares"},
	{"series sum", "sum series"},
	// statistics
	{"p value", "pvalue"},
	{"p values", "pvalues"},
	{"false discovery", "fdr"},
	{"multiple comparisons", "multiple testing fdr"},
	{"survival", "survival censored"},
	{"time to event", "survival censored"},
	{"gaussian", "normal"},
	{"bell curve", "normal"},
	{"random variable", "distribution"},
	{"resampling", "bootstrap permutation resample"},
	{"confidence interval", "confidence interval bootstrap"},
	// signals
	{"spectrogram", "stft short time fourier"},
	{"frequency content", "fourier fft spectrum"},
	// data frames
	{"lag", "shift periods"},
	{"lagged", "shift periods"},
	{"missing values", "na nan null fill"},
	{"missing data", "na nan null fill"},
	{"null values", "na nan"},
	{"elementwise", "element wise"},
	{"every cell", "elementwise"},
	{"row labels", "index"},
	{"column labels", "columns"},
	{"wide to long", "melt stack"},
	{"long to wide", "pivot unstack"},
	{"group by", "groupby"},
	{"per group", "groupby"},
	{"each group", "groupby"},
	// strings
	{"substitute", "replace"},
	{"begins with", "startswith"},
	{"ends with", "endswith"},
	{"upper case", "upper uppercase"},
	{"lower case", "lower lowercase"},
	{"centred", "center"},
	{"centered", "center"},
	{"dictionary", "dict"},
	{"smoothing", "smooth spline"},
	// Added on 2026-11-30 after reading the misses of the nl-heldout,
	// nl-heldout2 and nl-heldout3 sets (so those are no longer blind to
	// it; nl-heldout4, written afterwards, measures it): everyday words for
	// extremes, central tendency, moments, window kinds and resampling,
	// written as general vocabulary, not per query.
	// extremes
	{"largest", "maximum max"},
	{"biggest", "maximum max"},
	{"highest", "maximum max"},
	{"greatest", "maximum max"},
	{"smallest", "minimum min"},
	{"lowest", "minimum min"},
	// central tendency, dispersion and shape
	{"middle value", "median"},
	{"average", "mean"},
	{"averages", "mean"},
	{"squared deviation", "variance"},
	{"variability", "variance standard deviation"},
	{"asymmetry", "skewness skew"},
	{"lopsided", "skewness skew"},
	{"tailedness", "kurtosis"},
	{"total", "sum"},
	{"totals", "sum"},
	{"add up", "sum"},
	// windows and time bins
	{"moving", "rolling"},
	{"trailing window", "rolling window"},
	{"growing window", "expanding window"},
	{"up to each", "expanding cumulative"},
	{"downsample", "resample"},
	{"downsampling", "resample"},
	{"upsample", "resample"},
	{"upsampling", "resample"},
	{"earliest", "first"},
	{"latest", "last"},
	{"most recent", "last"},
	// constant arrays
	{"1s", "ones"},
	{"0s", "zeros"},
}

// expandQuery appends the documentation terms of the phrases in q, matched
// case-insensitively with hyphens read as spaces ("moving-window").
func expandQuery(q string) string {
	lq := strings.ReplaceAll(strings.ToLower(q), "-", " ")
	var extra []string
	for _, s := range synonyms {
		if containsPhrase(lq, s.phrase) {
			extra = append(extra, s.terms)
		}
	}
	if len(extra) == 0 {
		return q
	}
	return q + "\n" + strings.Join(extra, " ")
}

// containsPhrase reports whether phrase occurs in s between word
// boundaries ("lag" is in "a lag of 2", not in "a flag").
func containsPhrase(s, phrase string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], phrase)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(phrase)
		if (start == 0 || !isWordByte(s[start-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		off = start + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}
