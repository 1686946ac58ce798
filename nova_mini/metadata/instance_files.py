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

"""The bytes of an instance's metadata files, as both the metadata
service serves them and the config drive holds them: one rendering, so an
instance reads the same documents from either.

``InstanceFiles.read`` renders one file of a version: meta_data.json and
network_data.json through the document cache, user_data as the instance
gave it, vendor_data.json and vendor_data2.json from the vendordata
providers (DynamicJSON's targets called with its token, timeouts, cache and
failure rules).
"""

from oslo_serialization import jsonutils

from nova_mini import exception
from nova_mini.metadata import cache
from nova_mini.metadata import documents
from nova_mini.metadata import vendordata
from nova_mini.metadata import versions


class InstanceFiles:
    """Renders the files of the OpenStack metadata format.

    :param conf: the options (``[metadata]``, ``default_availability_zone``).
    :param vendor_data: what ``vendordata.load(conf)`` returns.
    :param document_cache: a ``cache.DocumentCache``.
    """

    def __init__(self, conf, vendor_data, document_cache):
        self.conf = conf
        self.vendor_data = vendor_data
        self.cache = document_cache
        self._render = {
            versions.META_DATA: self._meta_data,
            versions.USER_DATA: self._user_data,
            versions.VENDOR_DATA: self._vendor_data,
            versions.NETWORK_DATA: self._network_data,
            versions.VENDOR_DATA2: self._vendor_data2,
        }

    @classmethod
    def from_conf(cls, conf):
        """Build it with the configuration's vendordata providers and
        document cache.

        :raises nova_mini.exception.VendorDataConfigError: a provider's
            configuration is invalid.
        """
        return cls(conf, vendordata.load(conf),
                   cache.DocumentCache.from_conf(conf))

    def read(self, instance, version, name):
        """Return the content of file ``name`` of ``version``.

        :param instance: the Instance.
        :param version: a served version (``versions.resolve``'s).
        :param name: a file that ``version`` serves
            (``versions.serves``).
        :returns: bytes.
        :raises nova_mini.exception.ResourceNotFound: user_data of an
            instance without any.
        :raises nova_mini.exception.VendorDataTargetFailed: a dynamic
            target failed and ``[api] vendordata_dynamic_failure_fatal``
            is set.
        """
        return self._render[name](instance, version)

    def close(self):
        """Close the vendordata providers' sessions."""
        self.vendor_data.close()

    def _cached(self, instance, version, name, render):
        # NOTE: updated_at alone would do where the database keeps
        # microseconds; MySQL's DATETIME keeps whole seconds, and two
        # changes within one second would share a stamp. The values the
        # documents are made of settle it.
        key = (instance.uuid, instance.updated_at, documents.inputs(instance),
               version, name)
        return self.cache.get(key, render)

    def _meta_data(self, instance, version):
        return self._cached(
            instance, version, versions.META_DATA,
            lambda: jsonutils.dump_as_bytes(
                documents.meta_data(instance, version, self.conf)))

    def _network_data(self, instance, version):
        return self._cached(
            instance, version, versions.NETWORK_DATA,
            lambda: jsonutils.dump_as_bytes(documents.network_data(instance)))

    def _user_data(self, instance, version):
        data = documents.user_data(instance)
        if data is None:
            raise exception.ResourceNotFound()
        return data

    def _vendor_data(self, instance, version):
        return jsonutils.dump_as_bytes(self.vendor_data.vendor_data(instance))

    def _vendor_data2(self, instance, version):
        return jsonutils.dump_as_bytes(self.vendor_data.vendor_data2(instance))
