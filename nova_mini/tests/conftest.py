"""pytest hooks of the whole suite."""


def pytest_make_parametrize_id(config, val, argname):
    """Ids for parametrized strings and bytes, without ':'.

    gabbi's pytest plugin (loaded by the gabbi test loaders) takes every
    test id with a ':' for one of its own tests and fails the whole
    collection; values such as URLs and HTTP dates have them.
    """
    if isinstance(val, str) and ':' in val:
        return val.replace(':', '_')
    if isinstance(val, bytes) and b':' in val:
        return val.replace(b':', b'_').decode('ascii', 'backslashreplace')
    return None
