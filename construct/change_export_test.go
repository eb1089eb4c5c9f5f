package construct

// ParseSignature is parseSignature, for tests.
var ParseSignature = parseSignature

// SameDefault is sameDefault, for tests.
var SameDefault = sameDefault
