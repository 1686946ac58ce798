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
