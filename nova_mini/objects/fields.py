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


class ListOfFlexibleDictsField(ovo_fields.AutoTypedField):
    AUTO_TYPE = ovo_fields.List(FlexibleDict())
