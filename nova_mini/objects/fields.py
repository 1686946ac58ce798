"""Field types for nova_mini's objects (oslo.versionedobjects' plus ours)."""

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields as ovo_fields
from oslo_versionedobjects.fields import *  # noqa: F401,F403


class FlexibleDict(ovo_fields.FieldType):
    """A JSON object of anything (a node's properties, instance_info...);
    a string holding one is decoded.
    """

    @staticmethod
    def coerce(obj, attr, value):
        if isinstance(value, str):
            value = jsonutils.loads(value)
        return dict(value)


class FlexibleDictField(ovo_fields.AutoTypedField):
    AUTO_TYPE = FlexibleDict()
