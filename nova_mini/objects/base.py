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

"""Base classes and the registry of nova_mini's versioned objects."""

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields


class NovaMiniObjectRegistry(ovo_base.VersionedObjectRegistry):
    def registration_hook(self, cls, index):
        # Make the newest version of each class reachable as
        # nova_mini.objects.<Name>, as the other daemons expect.
        import nova_mini.objects
        current = getattr(nova_mini.objects, cls.obj_name(), None)
        if current is None or _version(cls) >= _version(current):
            setattr(nova_mini.objects, cls.obj_name(), cls)


def _version(cls):
    return tuple(int(part) for part in cls.VERSION.split('.'))


class NovaMiniObject(ovo_base.VersionedObject):
    OBJ_SERIAL_NAMESPACE = 'nova_mini_object'
    OBJ_PROJECT_NAMESPACE = 'nova_mini'

    # oslo.versionedobjects' answers, without building the list of field
    # names for every question: obj_to_primitive asks each object what
    # changed, which asks every field whether it is set and every nested
    # object again (a RequestSpec on each RPC call, 262 questions).
    def obj_attr_is_set(self, attrname):
        if attrname not in self.fields and \
                attrname not in self.obj_extra_fields:
            raise AttributeError("%s object has no attribute '%s'"
                                 % (self.obj_name(), attrname))
        return hasattr(self, '_obj_' + attrname)

    def obj_what_changed(self):
        fields = self.fields
        changes = {name for name in self._changed_fields if name in fields}
        for name in fields:
            value = getattr(self, '_obj_' + name, None)
            if isinstance(value, ovo_base.VersionedObject) and \
                    value.obj_what_changed():
                changes.add(name)
        return changes


class NovaMiniPersistentObject(object):
    """Mix-in of the timestamp fields every table row has."""

    fields = {
        'created_at': ovo_fields.DateTimeField(nullable=True),
        'updated_at': ovo_fields.DateTimeField(nullable=True),
    }


class ObjectListBase(ovo_base.ObjectListBase):
    pass


class NovaMiniObjectSerializer(ovo_base.VersionedObjectSerializer):
    OBJ_BASE_CLASS = NovaMiniObject


def obj_to_primitive(obj):
    """Return ``obj`` as primitives (oslo.versionedobjects' rendering).

    :param obj: an object, a list or dict of them, or a plain value.
    :returns: dicts, lists and plain values.
    """
    return ovo_base.obj_to_primitive(obj)
