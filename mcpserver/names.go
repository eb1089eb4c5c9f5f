package mcpserver

import (
	"regexp"
	"strings"
)

// importToDist maps common import names to distribution names (and back,
// see [normLibrary]), so that a library given either way resolves.
var importToDist = map[string]string{
	"pil":             "pillow",
	"sklearn":         "scikit-learn",
	"skimage":         "scikit-image",
	"yaml":            "pyyaml",
	"bs4":             "beautifulsoup4",
	"cv2":             "opencv-python",
	"dateutil":        "python-dateutil",
	"attr":            "attrs",
	"torch":           "pytorch",
	"jwt":             "pyjwt",
	"dotenv":          "python-dotenv",
	"mdanalysis":      "mdanalysis",
	"google.protobuf": "protobuf",
	"magic":           "python-magic",
	"serial":          "pyserial",
	"usb":             "pyusb",
	"crypto":          "pycryptodome",
	"docx":            "python-docx",
	"pptx":            "python-pptx",
	"fitz":            "pymupdf",
	"zmq":             "pyzmq",
	"git":             "gitpython",
}

var pep503 = regexp.MustCompile(`[-_.]+`)

// normLibrary normalises a library name the way PEP 503 normalises
// distribution names: lower case, runs of "-", "_", "." become "-".
func normLibrary(s string) string {
	return pep503.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "-")
}

// resolveLibrary finds the library key among known for name, accepting
// case and separator differences and import-vs-distribution names ("PIL" →
// "pillow", "scikit-learn" → "sklearn"). ok is false when none matches.
func resolveLibrary(name string, known []string) (string, bool) {
	n := normLibrary(name)
	if n == "" {
		return "", false
	}
	byNorm := make(map[string]string, len(known))
	for _, k := range known {
		byNorm[normLibrary(k)] = k
	}
	if k, ok := byNorm[n]; ok {
		return k, true
	}
	if d, ok := importToDist[strings.ToLower(strings.TrimSpace(name))]; ok {
		if k, ok := byNorm[normLibrary(d)]; ok {
			return k, true
		}
	}
	for imp, dist := range importToDist {
		if normLibrary(dist) == n {
			if k, ok := byNorm[normLibrary(imp)]; ok {
				return k, true
			}
		}
	}
	return "", false
}
