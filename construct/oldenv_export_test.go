package construct

// CheckOldEnv is checkOldEnv, for tests.
var CheckOldEnv = checkOldEnv
