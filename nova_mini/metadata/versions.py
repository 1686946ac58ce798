#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The OpenStack metadata versions nova-mini-metadata serves, and the files
each one has.

The versions are Nova's (Nova 34): dates that name a release's changes to
the format, oldest first. A version serves every file and key of the
versions before it, plus what its own line below says. ``latest`` is the
newest one. A file is listed in a version's directory exactly when that
version serves it (``files``), so a listed file never answers 404.
"""

FOLSOM = '2012-08-10'      # meta_data.json, user_data
GRIZZLY = '2013-04-04'     # meta_data.json: random_seed
HAVANA = '2013-10-17'      # vendor_data.json
LIBERTY = '2015-10-15'     # network_data.json; meta_data.json: project_id
NEWTON_ONE = '2016-06-30'  # meta_data.json: devices
NEWTON_TWO = '2016-10-06'  # vendor_data2.json
OCATA = '2017-02-22'       # devices: the vlan of tagged NICs
ROCKY = '2018-08-27'       # devices: vf_trusted of NICs
VICTORIA = '2020-10-14'    # meta_data.json: dedicated_cpus
EPOXY = '2025-04-04'       # devices: shared file systems

VERSIONS = (FOLSOM, GRIZZLY, HAVANA, LIBERTY, NEWTON_ONE, NEWTON_TWO, OCATA,
            ROCKY, VICTORIA, EPOXY)
LATEST = 'latest'

META_DATA = 'meta_data.json'
USER_DATA = 'user_data'
VENDOR_DATA = 'vendor_data.json'
NETWORK_DATA = 'network_data.json'
VENDOR_DATA2 = 'vendor_data2.json'

# Each file, in the order of a version's listing, with the first version
# that serves it. NOTE: Nova also lists "password" from GRIZZLY (a guest
# posts its encrypted password there); nova_mini does not serve it, so
# does not list it.
FILES = (
    (META_DATA, FOLSOM),
    (USER_DATA, FOLSOM),
    (VENDOR_DATA, HAVANA),
    (NETWORK_DATA, LIBERTY),
    (VENDOR_DATA2, NEWTON_TWO),
)


def listed():
    """Return the names of the ``/openstack`` listing, oldest first."""
    return list(VERSIONS) + [LATEST]


def resolve(name):
    """Return the version a path names.

    :param name: the path's segment (``latest`` is the newest).
    :returns: the version, or None for an unknown one.
    """
    if name == LATEST:
        return VERSIONS[-1]
    return name if name in VERSIONS else None


def at_least(version, minimum):
    """Return whether ``version`` has what ``minimum`` added.

    :param version: a served version.
    :param minimum: the version that added something.
    :returns: a bool.
    """
    return VERSIONS.index(version) >= VERSIONS.index(minimum)


def serves(version, name):
    """Return whether ``version`` has the file ``name`` (user_data aside,
    which also needs the instance to have some).

    :param version: a served version.
    :param name: the file's name.
    :returns: a bool.
    """
    return any(name == file_name and at_least(version, first)
               for file_name, first in FILES)


def files(version, has_user_data):
    """Return the listing of ``version``'s directory for an instance.

    :param version: a served version.
    :param has_user_data: whether the instance has user data.
    :returns: the file names.
    """
    return [name for name, first in FILES
            if at_least(version, first)
            and (name != USER_DATA or has_user_data)]
