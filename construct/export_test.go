package construct

// Redact is redact, for tests.
var Redact = redact
