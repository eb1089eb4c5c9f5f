package sandbox

// PythonSpec returns a Spec that runs mainPy as /job/main.py with the
// default argv (python3 -I -B /job/main.py) and default limits in env;
// files are placed beside it in /job.
func PythonSpec(env *Environment, mainPy []byte, files ...File) Spec {
	all := make([]File, 0, len(files)+1)
	all = append(all, File{Path: "main.py", Data: mainPy, Mode: 0o444})
	all = append(all, files...)
	return Spec{Environment: env, Files: all}
}
