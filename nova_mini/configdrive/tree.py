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

"""The files of an instance's config drive, rendered by the metadata
service's own code (``metadata.instance_files``), so the drive and the
service never disagree.

The drive holds ``openstack/<version>/<file>`` for every version the
service lists (``latest`` too), each with the files the service lists in
that version's directory: meta_data.json, user_data (when the instance
has some), vendor_data.json, network_data.json and vendor_data2.json,
as Nova's config drive does. There is no ``ec2`` tree (nova_mini serves
no EC2 metadata) and no ``openstack/content`` (the compute API refuses
injected files).

A file whose content does not depend on the version (all but
meta_data.json, which gains keys with the versions) is rendered once, so
that each DynamicJSON target is called once per drive.
"""

from nova_mini.configdrive import iso
from nova_mini.metadata import cache
from nova_mini.metadata import instance_files
from nova_mini.metadata import vendordata
from nova_mini.metadata import versions

# The one file that differs from one version to the next.
_PER_VERSION = frozenset([versions.META_DATA])


class ConfigDriveBuilder:
    """Builds instances' config drives with the configuration's
    vendordata providers, as the metadata service has them.

    :param files: a ``metadata.instance_files.InstanceFiles``.
    :param max_size: the largest image, in bytes.
    """

    def __init__(self, files, max_size=iso.MAX_SIZE):
        self.files = files
        self.max_size = max_size

    @classmethod
    def from_conf(cls, conf):
        """Build it with ``[api] vendordata_providers`` and ``[DEFAULT]
        config_drive_max_size``; no document is kept (every drive is of a
        new instance state).

        :raises nova_mini.exception.VendorDataConfigError: a provider's
            configuration is invalid.
        """
        return cls(instance_files.InstanceFiles(
            conf, vendordata.load(conf), cache.DocumentCache(0, 1)),
            max_size=conf.config_drive_max_size)

    def tree(self, instance):
        """Return the drive's files.

        :param instance: the Instance, with the ``node_uuid`` it is
            deployed on.
        :returns: {path: bytes}.
        :raises nova_mini.exception.VendorDataTargetFailed: a dynamic
            target failed and ``[api] vendordata_dynamic_failure_fatal``
            is set.
        """
        has_user_data = instance.user_data is not None
        rendered = {}
        files = {}
        for listed in versions.listed():
            version = versions.resolve(listed)
            for name in versions.files(version, has_user_data):
                key = (version if name in _PER_VERSION else None, name)
                if key not in rendered:
                    rendered[key] = self.files.read(instance, version, name)
                files['openstack/%s/%s' % (listed, name)] = rendered[key]
        return files

    def build(self, instance):
        """Return the drive as a node receives it: the ISO image, gzip +
        base64.

        :param instance: as ``tree``.
        :returns: str.
        :raises nova_mini.exception.ConfigDriveTooLarge: over
            ``max_size``.
        :raises nova_mini.exception.VendorDataTargetFailed: as ``tree``.
        """
        return iso.encode(iso.build(self.tree(instance),
                                    max_size=self.max_size))

    def close(self):
        """Close the vendordata providers' sessions."""
        self.files.close()
