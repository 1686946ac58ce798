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

"""Options of the [deploy] group: the images a nova-mini-conductor hands
to a node's BMC as virtual media (the boot ISO of a ramdisk deploy, the
config drive) and the web server directory they are served from
(nova_mini.conductor.deploy_images). Ironic's names and defaults.

This module also registers the two [DEFAULT] options of Ironic for
downloads from other web servers, and ``[redfish] file_permission`` (in
the group of nova_mini.conf.redfish, Ironic's place for it).
"""

from oslo_config import cfg
from oslo_config import types

from nova_mini.conf import redfish


class Permission(types.ConfigType):
    """File permission bits written in octal: ``0o644`` or ``644``
    (oslo.config's Integer would take ``644`` as decimal and refuse
    ``0o644``).
    """

    def __init__(self, type_name='octal permission'):
        super(Permission, self).__init__(type_name=type_name)

    def __call__(self, value):
        if not isinstance(value, int):
            try:
                value = int(str(value).strip(), 8)
            except ValueError:
                raise ValueError('%r is not an octal permission such as '
                                 '0o644' % (value,))
        if not 0 <= value <= 0o777:
            raise ValueError('%o is not a permission (0 to 0o777)' % value)
        return value

    def __eq__(self, other):
        return self.__class__ == other.__class__

    def _formatter(self, value):
        return '0o%o' % self(value)


deploy_group = cfg.OptGroup(
    'deploy', title='Deploy options',
    help='Where nova-mini-conductor puts the images it hands to the BMCs '
         'of redfish nodes (virtual media) and the web server URL they '
         'download them from.')

deploy_opts = [
    cfg.URIOpt('http_url', schemes=['http', 'https'],
               help='The URL of the web server that serves http_root, as '
                    'the BMCs reach it, for example http://192.0.2.10:8080. '
                    'Required to deploy a redfish node with an image of '
                    'Glance or a config drive.'),
    cfg.URIOpt('external_http_url', schemes=['http', 'https'],
               help='The URL of that web server for the BMCs when they '
                    'reach it at another address than http_url (virtual '
                    'media outside the provisioning network). Unset: '
                    'http_url.'),
    cfg.StrOpt('http_root', default='/httpboot',
               help='The directory the web server of http_url serves. The '
                    'conductor writes the nodes\' images in its redfish '
                    'subdirectory; it must be writable by the conductor '
                    'and readable by the web server.'),
    cfg.StrOpt('ramdisk_image_download_source', default='local',
               choices=[('http', 'A boot_iso that is an http(s) URL is '
                                 'handed to the BMC as is; the BMC '
                                 'downloads it from there.'),
                        ('local', 'The image is downloaded by the '
                                  'conductor, cached, and served from '
                                  'http_root.')],
               mutable=True,
               help='How the boot ISO of a ramdisk deploy reaches the BMC '
                    'when the node\'s instance_info gives it as a URL; a '
                    'node\'s instance_info ramdisk_image_download_source '
                    'overrides it. Images of Glance are always downloaded '
                    'and served from http_root.'),
    cfg.StrOpt('iso_master_path', default='$state_path/master_iso_images',
               sample_default='/var/lib/nova_mini/master_iso_images',
               help='The directory where the conductor keeps the boot ISOs '
                    'it downloaded (one copy per image, shared by the '
                    'nodes deploying it). Empty: no cache, every deploy '
                    'downloads its image.'),
    cfg.IntOpt('iso_cache_size', default=20480, min=1,
               help='The most MiB the cached ISOs may take, those in use '
                    'included; the least recently used unused ones are '
                    'removed beyond it. An image larger than that is not '
                    'downloaded.'),
    cfg.IntOpt('iso_cache_ttl', default=10080, min=0,
               help='Minutes an unused cached ISO is kept (10080: a '
                    'week).'),
]

# Ironic's [DEFAULT] options for downloads from web servers.
webserver_opts = [
    cfg.StrOpt('webserver_verify_ca', default='True',
               help='How the conductor verifies the TLS certificate of a '
                    'web server it downloads an image or a config drive '
                    'from: True (the system\'s CAs), False (no '
                    'verification), or the path of a CA bundle.'),
    cfg.IntOpt('webserver_connection_timeout', default=60, min=1,
               help='Seconds to wait for a web server the conductor '
                    'downloads an image or a config drive from, to connect '
                    'and between two reads.'),
]

# Ironic's [redfish] option for the published images.
redfish_opts = [
    cfg.Opt('file_permission', type=Permission(), default=0o644,
            help='The permission bits of the files the conductor '
                 'publishes in http_root for the BMCs to download, in '
                 'octal (0o644: readable by the web server whatever its '
                 'user).'),
]


def register_opts(conf):
    conf.register_group(deploy_group)
    conf.register_opts(deploy_opts, group=deploy_group)
    conf.register_opts(webserver_opts)
    conf.register_opts(redfish_opts, group=redfish.redfish_group)


def list_opts():
    return {deploy_group: deploy_opts,
            'DEFAULT': webserver_opts,
            redfish.redfish_group: redfish_opts}
