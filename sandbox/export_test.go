package sandbox

// UseVolumeOut makes d's later runs put /out on an anonymous volume, as on
// a host where the harness cannot mount or the engine does not see its
// mounts.
func (d *Docker) UseVolumeOut() { d.useVolumeOut("asked by a test") }
