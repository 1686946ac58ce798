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

"""The rules of an image against its flavor give Nova 34's answer: the
refusal and its message, or acceptance, on the pairs
tools/image_flavor_rules/nova_answers.py recorded from the real Nova
(data/image_flavor_rules_nova.json). The one difference is nova_mini's:
at boot an image trait the flavor forbids is a 400 (Nova leaves it to
Placement, which finds no host).
"""

import json
import os

from nova_mini.api.compute import image_flavor_rules as rules
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta

objects.register_all()

DATA = os.path.join(os.path.dirname(__file__), 'data',
                    'image_flavor_rules_nova.json')
IMAGE_ID = '7b3c1d2e-0000-4000-8000-00000000abcd'


def _load():
    with open(DATA) as f:
        return json.load(f)


def _answer(specs, props):
    flavor = objects.Flavor(name='bm.small', vcpus=4, memory_mb=4096,
                            extra_specs=specs)
    image = image_meta.ImageMeta.from_dict(
        {'id': IMAGE_ID, 'name': 'cirros', 'properties': props})
    try:
        rules.check(flavor, image)
    except exception.Invalid as exc:
        return exc.format_message()
    return None


def _forbidden_and_required(specs, props):
    return sorted(
        key[len('trait:'):] for key, value in props.items()
        if key.startswith('trait:') and value == 'required' and
        specs.get(key) == 'forbidden')


def test_recorded_from_nova_34():
    data = _load()
    assert data['nova_version'].startswith('34.')
    # Both answers well represented.
    refused = sum(1 for case in data['cases'] if case['nova'])
    assert 500 < refused < len(data['cases']) - 300


def test_same_answers_as_nova():
    differences = []
    for case in _load()['cases']:
        specs, props = case['specs'], case['props']
        expected = case['nova']
        clash = _forbidden_and_required(specs, props)
        if expected is None and clash:
            expected = (
                'Image traits are part of forbidden traits in flavor '
                'bm.small (%s). Either specify a different image or a '
                'compatible flavor.' % ', '.join(clash))
        got = _answer(specs, props)
        if got != expected:
            differences.append((specs, props, expected, got))
    assert differences == []
