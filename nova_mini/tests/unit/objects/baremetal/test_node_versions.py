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

"""Node primitives for older readers: each version's fields dropped."""

import datetime

from nova_mini import objects

WHEN = datetime.datetime(2026, 11, 27, 14, 0, tzinfo=datetime.timezone.utc)
RAID = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}


def _node():
    objects.register_all()
    return objects.Node(uuid='0f3d2a4c-6b8e-4d1f-9a2b-3c4d5e6f7a8b',
                        driver='fake-hardware', owner='p1',
                        description='d', inspection_started_at=WHEN,
                        inspection_finished_at=WHEN,
                        target_raid_config=RAID, raid_config=RAID)


def _data(node, version):
    return node.obj_to_primitive(target_version=version)[
        'nova_mini_object.data']


def test_1_4_carries_the_raid_configs():
    data = _data(_node(), '1.4')
    assert data['target_raid_config'] == RAID
    assert data['raid_config'] == RAID


def test_1_3_drops_the_raid_configs_only():
    data = _data(_node(), '1.3')
    assert 'target_raid_config' not in data
    assert 'raid_config' not in data
    assert data['inspection_started_at'].startswith('2026-11-27T14:00:00')


def test_1_3_carries_the_inspection_times():
    data = _data(_node(), '1.3')
    assert data['inspection_started_at'] == data['inspection_finished_at']
    assert data['inspection_started_at'].startswith('2026-11-27T14:00:00')


def test_1_2_drops_the_inspection_times_only():
    data = _data(_node(), '1.2')
    assert 'inspection_started_at' not in data
    assert 'inspection_finished_at' not in data
    assert data['description'] == 'd'
    assert data['owner'] == 'p1'


def test_1_1_and_1_0():
    assert 'description' not in _data(_node(), '1.1')
    assert _data(_node(), '1.1')['owner'] == 'p1'
    assert 'owner' not in _data(_node(), '1.0')
