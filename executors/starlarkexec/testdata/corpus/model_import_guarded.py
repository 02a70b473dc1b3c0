# Imports a program guards run where they execute: an if branch that does
# not run imports nothing, and a failed import in a try body is an
# ImportError the program catches.
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from pandas import DataFrame

try:
    import fastjsonlib_not_installed as fastjson
except ImportError:
    fastjson = None

try:
    from yaml_not_installed import safe_load
except (ImportError, AttributeError) as e:
    print("fallback:", isinstance(e, ImportError))
    safe_load = None

def load(text):
    try:
        import tomllib_not_installed as toml
    except Exception:
        return "no toml"
    return toml.loads(text)

import json
print(fastjson is None, safe_load, load("a = 1"), json.dumps([1, 2]))
final_answer(fastjson)
