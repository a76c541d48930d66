import json
import logging

log = logging.getLogger("fixture")


def scale(x):
    print("scaling")
    return x * 2


def describe(x):
    meta = json.dumps({"shape": list(x.shape)})
    return x + len(meta)
