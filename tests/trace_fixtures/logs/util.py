import json


def describe(x):
    return x + len(json.dumps({"n": x.numel()}))


def announce(x):
    print("announce", x.shape)
    return x - 1
