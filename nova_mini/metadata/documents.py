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

"""What an instance reads about itself: the content of meta_data.json,
network_data.json and user_data, as Nova renders them for a bare-metal
server, at each metadata version.

``public_keys`` and ``keys`` are there for a server booted with a key
pair (``key_name``): the public key the server kept at boot, whatever
became of the key pair since.

Of the keys Nova puts in meta_data.json, these never appear here:

* ``files`` (injected files), ``admin_pass`` and ``network_config``: Nova
  writes them to config drives only.

``devices`` (device role tags) and ``dedicated_cpus`` (pinned CPUs of the
guest's NUMA topology) are empty lists, as Nova shows them for a
bare-metal server, which has neither.
"""

import os

from oslo_serialization import base64

from nova_mini import context as nm_context
from nova_mini.metadata import versions
from nova_mini import objects

# Bytes of randomness in meta_data.json's random_seed, as in Nova.
RANDOM_SEED_BYTES = 512


def inputs(instance):
    """Return what the rendered documents of ``instance`` depend on: part of
    their cache key (see nova_mini.metadata.cache).

    :param instance: the Instance.
    :returns: a hashable tuple.
    """
    return (instance.name, instance.project_id, instance.node_uuid,
            instance.launch_index, tuple(sorted(instance.metadata.items())),
            instance.key_name, instance.key_data)


def key_type(key_data):
    """The type of a kept public key: ``x509`` for a PEM certificate,
    else ``ssh`` (the key pairs API accepts nothing else).
    """
    return 'x509' if key_data.lstrip().startswith('-----BEGIN') else 'ssh'


def hostname(instance, conf):
    """Return the instance's host name, with ``[metadata] dhcp_domain`` if
    set.

    :param instance: the Instance.
    :param conf: the configuration.
    :returns: the host name.
    """
    domain = conf.metadata.dhcp_domain
    return '%s.%s' % (instance.hostname, domain) if domain else (
        instance.hostname)


def availability_zone(instance, conf):
    """Return the zone of the instance's node.

    :param instance: the Instance.
    :param conf: the configuration.
    :returns: the zone; None before it has a node (as in the server
        view, where Nova shows an empty string for it).
    """
    return conf.default_availability_zone if instance.node_uuid else None


def meta_data(instance, version, conf):
    """Return the content of ``version``'s meta_data.json.

    :param instance: the Instance.
    :param version: the metadata version served.
    :param conf: the configuration.
    :returns: the document (a dict).
    """
    document = {'uuid': instance.uuid}
    # Like Nova: no "meta" key at all for an instance without metadata.
    if instance.metadata:
        document['meta'] = dict(instance.metadata)
    if instance.key_name and instance.key_data:
        document['public_keys'] = {instance.key_name: instance.key_data}
        document['keys'] = [{'name': instance.key_name,
                             'type': key_type(instance.key_data),
                             'data': instance.key_data}]
    document.update({
        'hostname': hostname(instance, conf),
        'name': instance.name,
        'launch_index': instance.launch_index,
        'availability_zone': availability_zone(instance, conf),
    })
    if versions.at_least(version, versions.GRIZZLY):
        document['random_seed'] = base64.encode_as_text(
            os.urandom(RANDOM_SEED_BYTES))
    if versions.at_least(version, versions.LIBERTY):
        document['project_id'] = instance.project_id
    if versions.at_least(version, versions.NEWTON_ONE):
        document['devices'] = []
    if versions.at_least(version, versions.VICTORIA):
        document['dedicated_cpus'] = []
    return document


def network_data(instance):
    """Return the content of network_data.json.

    The links are the ports of the instance's node, in the order they
    were created, each a physical link (``phy``) with its MAC address as
    Nova writes one per VIF; with no networking service there is no VIF,
    so ``vif_id`` is the bare-metal port's uuid. There are no networks or
    services to describe (no IP addresses are managed). A port added or
    removed shows once the cached document expires
    (``[metadata] metadata_cache_expiration``), as in Nova.

    :param instance: the Instance.
    :returns: the document (a dict).
    """
    links = []
    if instance.node_uuid:
        ports = objects.PortList.get_all(
            nm_context.get_admin_context(),
            filters={'node_uuid': instance.node_uuid})
        links = [{'id': 'interface%d' % index, 'vif_id': port.uuid,
                  'type': 'phy', 'mtu': None,
                  'ethernet_mac_address': port.address}
                 for index, port in enumerate(ports.objects)]
    return {'links': links, 'networks': [], 'services': []}


def user_data(instance):
    """Return the user data as the instance gave it (decoded from the
    base64 the API received).

    :param instance: the Instance.
    :returns: bytes, or None when it has none.
    """
    if instance.user_data is None:
        return None
    return base64.decode_as_bytes(instance.user_data)
