package index

import (
	"strings"
	"unicode"
)

// synonyms expands everyday phrasings into the terms API documentation
// uses, so that "running total" finds "cumulative sum". The table is a
// general vocabulary of numerical and data-frame programming (the words
// of textbooks and of the numpy, scipy and pandas glossaries), not a list
// of API names. The first part was written without looking at failed
// queries (entries that quoted bench/queries/nl.jsonl were removed); the
// later parts were added after reading the misses of held-out sets, as
// marked, and each was then measured on a held-out set written after it
// (docs/retrieval.md). Both legs see the expanded query; the paper
// baseline does not. Phrases match as expandQuery says.
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
	{"resampling", "resample"},
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
	// Added after reading the misses of nl-heldout 1–4 (nl-heldout5,
	// written afterwards, measures them blind): inverses and permutation
	// tests; "resampling" above now says only "resample" (it meant the
	// bootstrap, and pulled scipy.stats into pandas resampling questions).
	{"undo", "inverse"},
	{"go back", "inverse"},
	{"get back", "inverse"},
	{"back to the time domain", "inverse"},
	{"shuffle", "permutation"},
	{"shuffling", "permutation"},
	{"spread out", "dispersion variance standard deviation"},
	// Added after reading the misses of nl-heldout 5–7 (nl-heldout8,
	// written afterwards, measures them blind): quantiles, mode, circular
	// and censored data, image filters, text formats.
	{"percentile", "quantile"},
	{"percentiles", "quantile"},
	{"pctl", "percentile quantile"},
	{"50th percentile", "median"},
	{"cut points", "quantile"},
	{"most frequent", "mode"},
	{"exponentially weighted", "ewm"},
	{"so far", "expanding cumulative"},
	{"capital letters", "upper uppercase"},
	{"decimal places", "round decimals"},
	{"angles", "circular"},
	{"wraparound", "circular"},
	{"wrap around", "circular"},
	{"detection limit", "censored"},
	{"box blur", "uniform filter"},
	{"box filter", "uniform filter"},
	{"pipe table", "markdown"},
	{"readme", "markdown"},
	// Added after reading the misses of nl-heldout8 (nl-heldout9, written
	// afterwards, measures them blind): spectra, modes, truncation, SQL.
	{"back into", "inverse"},
	{"frequency domain to", "inverse"},
	{"one sided spectrum", "real rfft"},
	{"half spectrum", "real rfft"},
	{"frequency bins", "sample frequencies"},
	{"frequency bin", "sample frequencies"},
	{"frequency axis", "sample frequencies"},
	{"most frequently", "mode"},
	{"cut off", "truncated"},
	{"multiply together", "product prod"},
	{"dictionaries", "dict"},
	{"select statement", "sql query"},
}

// phraseGap is how many other words may stand between two words of a
// phrase in a query: "second partial derivatives" says "second
// derivatives", "running compounded product" a "running product".
const phraseGap = 1

// expandQuery appends the documentation terms of the phrases in q. A phrase
// matches when its words occur in q in order, case-insensitively, each
// within phraseGap words of the previous one; words are runs of letters,
// digits and underscores, so a hyphen separates words ("moving-window").
func expandQuery(q string) string {
	ws := queryWords(q)
	var extra []string
	for i, s := range synonyms {
		if containsPhrase(ws, phraseWords[i]) {
			extra = append(extra, s.terms)
		}
	}
	if len(extra) == 0 {
		return q
	}
	return q + "\n" + strings.Join(extra, " ")
}

// phraseWords holds the words of each phrase of synonyms, split once.
var phraseWords = func() [][]string {
	out := make([][]string, len(synonyms))
	for i, s := range synonyms {
		out[i] = queryWords(s.phrase)
	}
	return out
}()

// queryWords returns the lowercased words of s.
func queryWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// containsPhrase reports whether the words of phrase occur in ws in order,
// each at most phraseGap words after the previous one ("lag" is in "a lag
// of 2", not in "a flag").
func containsPhrase(ws, phrase []string) bool {
	if len(phrase) == 0 {
		return false
	}
	for i, w := range ws {
		if w == phrase[0] && matchRest(ws[i+1:], phrase[1:]) {
			return true
		}
	}
	return false
}

func matchRest(ws, phrase []string) bool {
	if len(phrase) == 0 {
		return true
	}
	for j := 0; j <= phraseGap && j < len(ws); j++ {
		if ws[j] == phrase[0] && matchRest(ws[j+1:], phrase[1:]) {
			return true
		}
	}
	return false
}
