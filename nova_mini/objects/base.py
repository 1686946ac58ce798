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

import json

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields

from nova_mini import exception
from nova_mini.objects import fields

# The largest JSON document one column keeps: its serialized form (as
# oslo.db's JsonEncodedType writes it, ASCII) in a TEXT column of MariaDB
# or MySQL, 65,535 bytes. The bound holds on every backend, so that a
# member's ``extra`` cannot grow a row without bound on PostgreSQL and
# what one backend keeps another keeps too (MariaDB refused a longer
# one with a 500).
MAX_DOCUMENT_BYTES = 65535
_DOCUMENT_TYPES = (fields.FlexibleDictField, fields.ListOfFlexibleDictsField)


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
    # Fields stored as one JSON document (a JsonEncodedDict or
    # JsonEncodedList column), at most MAX_DOCUMENT_BYTES each: those of
    # the flexible dict types and the lists a class names here.
    JSON_DOCUMENT_FIELDS = ()

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

    def obj_get_changes(self):
        """The changed fields and their values, as create() and save()
        write them.

        :raises nova_mini.exception.Invalid: a JSON document field is
            larger than MAX_DOCUMENT_BYTES serialized.
        """
        changes = super().obj_get_changes()
        for name, value in changes.items():
            if (name in self.JSON_DOCUMENT_FIELDS
                    or isinstance(self.fields.get(name), _DOCUMENT_TYPES)):
                check_document_size(self.obj_name(), name, value)
        return changes


def check_document_size(kind, name, value):
    """400 (Invalid) unless ``value`` fits a JSON document column.

    :param kind: what holds it (e.g. ``Node``), for the message.
    :param name: the field, for the message.
    :param value: the document (None passes).
    """
    if value is None:
        return
    size = len(json.dumps(value))
    if size > MAX_DOCUMENT_BYTES:
        raise exception.Invalid(
            'The %(name)s of this %(kind)s is too large: %(size)d bytes as '
            'JSON, at most %(max)d.' % {'name': name, 'kind': kind,
                                        'size': size,
                                        'max': MAX_DOCUMENT_BYTES})


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
