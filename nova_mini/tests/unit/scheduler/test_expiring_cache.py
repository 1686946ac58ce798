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

"""nova_mini.scheduler.expiring_cache: entries expire, the least recently
used goes when full.
"""

import pytest

from nova_mini.scheduler import expiring_cache


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(expiring_cache.time, 'monotonic', lambda: now[0])
    return now


def test_entry_expires(clock):
    cache = expiring_cache.ExpiringCache(4, 5.0)
    cache.put('a', 1)
    clock[0] += 4.9
    assert cache.get('a') == 1
    clock[0] += 0.2
    assert cache.get('a') is None
    assert cache.get('a', 'gone') == 'gone'
    assert len(cache) == 0


def test_put_again_keeps_it_longer(clock):
    cache = expiring_cache.ExpiringCache(4, 5.0)
    cache.put('a', 1)
    clock[0] += 4
    cache.put('a', 2)
    clock[0] += 4
    assert cache.get('a') == 2


def test_least_recently_used_goes_when_full(clock):
    cache = expiring_cache.ExpiringCache(3, 5.0)
    for key in 'abc':
        cache.put(key, key.upper())
    assert cache.get('a') == 'A'      # now the most recently used
    cache.put('d', 'D')
    assert len(cache) == 3
    assert cache.get('b') is None
    assert [cache.get(k) for k in 'acd'] == ['A', 'C', 'D']
