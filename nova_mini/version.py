"""Version of the installed nova_mini package."""

import pbr.version

version_info = pbr.version.VersionInfo('nova_mini')


def version_string():
    try:
        return version_info.version_string()
    except Exception:  # not installed (e.g. a bare checkout on sys.path)
        return '0.0.0'
