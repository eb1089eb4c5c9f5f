# --- call-record check (auto-injected) ---
# docs/protocol.md §4.5: every expected reference record must be
# reproduced by at least one of the completion's own target calls (subset,
# order-free, any-match). The placeholder below is replaced by a Python
# string holding the expected records as JSON. The matching itself is
# _spy_check_calls of the recording monitor, bound at setup time with the
# builtins it needs, so a completion that patches builtins.any (or appends
# to _target_api_calls) cannot make it pass.
_target_api_recording[0] = False
_spy_check_calls(__NOVELAPI_EXPECTED__)
# --- end call-record check ---
