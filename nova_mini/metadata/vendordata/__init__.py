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

"""Vendordata of the metadata service: providers loaded by name.

``[api] vendordata_providers`` names the providers; each is a class
registered on the entry point group ``nova_mini.vendordata_providers``
(StaticJSON and DynamicJSON in tree, more from installed plugins), never a
Python path. ``load(conf)`` builds them all at start, so any configuration
error stops the daemon with one line.

A provider is constructed as ``Provider(conf)`` (raising
``VendorDataConfigError`` for a bad configuration) and has
``get(instance) -> dict``, whose keys are merged into vendor_data2.json. It
may declare ``keys``, the keys it can return, known at start: two providers
declaring one key is a configuration error. A key that two providers still
return at run time is kept from the first one listed, with a warning.
"""

import importlib.metadata

from oslo_log import log as logging
from stevedore import named

from nova_mini import exception

LOG = logging.getLogger(__name__)

NAMESPACE = 'nova_mini.vendordata_providers'
OPTION = '[api] vendordata_providers'
STATIC_JSON = 'StaticJSON'


def known_providers():
    """Names registered on the entry point group, sorted."""
    return sorted({entry_point.name for entry_point in
                   importlib.metadata.entry_points(group=NAMESPACE)})


def _unknown(names):
    raise exception.VendorDataConfigError(
        reason='%s: unknown provider %s (known: %s)' % (
            OPTION, ', '.join(sorted(names)),
            ', '.join(known_providers()) or 'none'))


def _load_failed(_manager, entry_point, error):
    if isinstance(error, exception.VendorDataConfigError):
        raise error
    raise exception.VendorDataConfigError(
        reason='%s: provider %s (%s) failed to load: %s: %s' % (
            OPTION, entry_point.name, entry_point.value,
            type(error).__name__, error)) from error


class VendorData:
    """The loaded providers, in the order of the option."""

    def __init__(self, providers):
        #: [(name, provider)]
        self.providers = list(providers)
        self._static = dict(self.providers).get(STATIC_JSON)
        owners = {}
        for name, provider in self.providers:
            for key in sorted(getattr(provider, 'keys', ()) or ()):
                if key in owners:
                    raise exception.VendorDataConfigError(
                        reason='%s: providers %s and %s both give the key '
                               '%r of vendor_data2.json'
                               % (OPTION, owners[key], name, key))
                owners[key] = name

    def vendor_data(self, instance):
        """Return the content of vendor_data.json: StaticJSON's document ({}
        without it).

        :param instance: the Instance.
        :returns: a dict.
        """
        return self._static.document() if self._static is not None else {}

    def vendor_data2(self, instance):
        """Return the content of vendor_data2.json: the merged keys of every
        provider (a key given twice keeps the first provider's value).

        :param instance: the Instance.
        :returns: a dict.
        :raises nova_mini.exception.VendorDataTargetFailed: a dynamic target
            failed and ``[api] vendordata_dynamic_failure_fatal`` is set.
        """
        merged = {}
        for name, provider in self.providers:
            for key, value in provider.get(instance).items():
                if key in merged:
                    LOG.warning('Vendordata provider %s gives the key %r '
                                'again for instance %s: ignored', name, key,
                                instance.uuid)
                    continue
                merged[key] = value
        return merged

    def close(self):
        """Close the providers that hold resources (HTTP sessions)."""
        for _name, provider in self.providers:
            if callable(getattr(provider, 'close', None)):
                provider.close()


def load(conf):
    """Load the providers of ``[api] vendordata_providers`` by name.

    :param conf: the configuration.
    :returns: a VendorData of them, in the option's order.
    :raises nova_mini.exception.VendorDataConfigError: a name is unknown
        or given twice, or a provider's configuration is invalid (one
        line naming the option).
    """
    names = list(conf.api.vendordata_providers)
    for name in names:
        if names.count(name) > 1:
            raise exception.VendorDataConfigError(
                reason='%s: provider %s is listed twice' % (OPTION, name))
    if not names:
        return VendorData([])
    manager = named.NamedExtensionManager(
        NAMESPACE, names, name_order=True, invoke_on_load=True,
        invoke_args=(conf,), on_load_failure_callback=_load_failed,
        on_missing_entrypoints_callback=_unknown)
    return VendorData((extension.name, extension.obj)
                      for extension in manager)
