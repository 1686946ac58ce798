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

"""The document cache of the metadata service: bounded, and a document
made once per key while it is kept (served behaviour: the functional
test_cache.py).
"""

import pytest

from nova_mini.metadata import cache


def test_cache_is_bounded():
    documents = cache.DocumentCache(ttl=60, maxsize=3)
    for n in range(10):
        assert documents.get(('uuid-%d' % n, None), lambda: n) == n
    assert len(documents) == 3
    # The most recent ones are kept.
    assert documents.get(('uuid-9', None), lambda: 'made again') == 9
    assert documents.get(('uuid-0', None), lambda: 'made again') == (
        'made again')


@pytest.mark.parametrize('ttl', [0, 30])
def test_make_called_once_per_key_while_cached(ttl):
    documents = cache.DocumentCache(ttl=ttl, maxsize=10)
    made = []
    for _ in range(3):
        documents.get('k', lambda: made.append(1) or len(made))
    assert len(made) == (3 if ttl == 0 else 1)
