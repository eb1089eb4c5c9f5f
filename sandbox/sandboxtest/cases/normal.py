# Normal exit: stdout, a record file in /out, the fixed environment.
import os, json, sys
print("hello from", os.getcwd(), os.getuid())
with open("/out/result.json", "w") as f:
    json.dump({"home": os.environ["HOME"], "tz": os.environ["TZ"], "hashseed": os.environ["PYTHONHASHSEED"],
               "hash_randomization": str(sys.flags.hash_randomization), "unbuffered": str(sys.stdout.write_through)}, f)
