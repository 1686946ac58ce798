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

"""NovaMiniObject's obj_attr_is_set and obj_what_changed answer as
oslo.versionedobjects' own do (they only skip building lists), for the
objects that cross RPC: a RequestSpec with its flavor and groups.
"""

import datetime

from oslo_versionedobjects import base as ovo_base
import pytest

from nova_mini import objects
from nova_mini.objects import request_spec


def _spec():
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=1024, vcpus=2,
        root_gb=10, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False, description=None,
        extra_specs={'resources1:CUSTOM_BAREMETAL': '1',
                     'trait1:CUSTOM_A': 'required',
                     'group_policy': 'none'},
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


def _ovo(obj, method, *args):
    return getattr(ovo_base.VersionedObject, method)(obj, *args)


def _walk(obj):
    yield obj
    for name in obj.fields:
        value = getattr(obj, '_obj_' + name, None)
        if isinstance(value, ovo_base.VersionedObject):
            yield from _walk(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ovo_base.VersionedObject):
                    yield from _walk(item)


def test_answers_are_those_of_oslo_versionedobjects():
    spec = _spec()
    for obj in _walk(spec):
        for name in obj.fields:
            assert obj.obj_attr_is_set(name) == _ovo(
                obj, 'obj_attr_is_set', name)
        assert obj.obj_what_changed() == _ovo(obj, 'obj_what_changed')
    spec.obj_reset_changes(recursive=True)
    assert spec.obj_what_changed() == set()
    # A change deep in a nested object shows on its parents.
    spec.flavor.name = 'renamed'
    assert spec.obj_what_changed() == _ovo(spec, 'obj_what_changed')
    assert 'flavor' in spec.obj_what_changed()
    assert spec.flavor.obj_what_changed() == {'name'}


def test_unknown_attribute_is_refused():
    spec = _spec()
    with pytest.raises(AttributeError, match='no attribute'):
        spec.obj_attr_is_set('no_such_field')


def test_primitive_is_unchanged():
    spec = _spec()
    primitive = spec.obj_to_primitive()
    # The same rendering as the base class's answers give.
    original = (objects.base.NovaMiniObject.obj_what_changed,
                objects.base.NovaMiniObject.obj_attr_is_set)
    try:
        del objects.base.NovaMiniObject.obj_what_changed
        del objects.base.NovaMiniObject.obj_attr_is_set
        assert spec.obj_to_primitive() == primitive
    finally:
        (objects.base.NovaMiniObject.obj_what_changed,
         objects.base.NovaMiniObject.obj_attr_is_set) = original
