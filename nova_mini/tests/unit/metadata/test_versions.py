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

"""The metadata service's OpenStack versions are Nova 34's (what each
serves: the functional test_documents.py).
"""

from nova_mini.metadata import versions

# Nova 34's OpenStack metadata versions (nova/api/metadata/base.py).
NOVA_34_VERSIONS = ['2012-08-10', '2013-04-04', '2013-10-17', '2015-10-15',
                    '2016-06-30', '2016-10-06', '2017-02-22', '2018-08-27',
                    '2020-10-14', '2025-04-04']


def test_versions_are_novas():
    assert list(versions.VERSIONS) == NOVA_34_VERSIONS
    assert versions.listed() == NOVA_34_VERSIONS + ['latest']
