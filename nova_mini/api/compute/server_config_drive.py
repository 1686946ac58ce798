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

"""The config drive of a rebuild: what the rebuilt server reads (its new
image, user data, key pair, metadata and name), built by the API before
the rebuild's transaction, as the scheduler builds a new server's at
deploy (nova_mini.scheduler.manager).
"""

from oslo_log import log as logging

from nova_mini.configdrive import required
from nova_mini.configdrive import tree
from nova_mini import exception

LOG = logging.getLogger(__name__)

# Seconds a client is told to wait after a vendordata target failed.
RETRY_AFTER = 5


def for_rebuild(instance, image, changes, metadata, conf):
    """Return the rebuilt server's config drive, or None if it gets none
    (configdrive.required: it had one, or the new image mandates one).

    The providers are loaded for the one drive: their HTTP cache would
    not serve the next rebuild, whose request body (image, user data)
    differs.

    :param instance: the Instance before the rebuild.
    :param image: the ImageMeta of the new image.
    :param changes: {field: value} the rebuild writes.
    :param metadata: the new metadata, or None to keep it.
    :param conf: the configuration.
    :returns: gzip + base64 text, or None.
    :raises nova_mini.exception.ConfigDriveVendorDataFailed: a dynamic
        target failed and failures are fatal (503).
    :raises nova_mini.exception.ConfigDriveTooLarge: over the cap (400).
    """
    if not required.required_by(instance, image, conf):
        return None
    rebuilt = instance.obj_clone()
    for name, value in changes.items():
        setattr(rebuilt, name, value)
    if metadata is not None:
        rebuilt.metadata = dict(metadata)
    builder = tree.ConfigDriveBuilder.from_conf(conf)
    try:
        return builder.build(rebuilt)
    except exception.VendorDataTargetFailed as exc:
        LOG.error('Rebuild of instance %s: config drive not built: %s',
                  instance.uuid, exc)
        raise exception.ConfigDriveVendorDataFailed(
            target=exc.kwargs.get('target'),
            retry_after=RETRY_AFTER) from exc
    finally:
        builder.close()
