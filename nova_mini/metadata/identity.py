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

"""Which instance a metadata request is for.

As behind Neutron's metadata proxy: the proxy (Neutron's metadata agent)
knows the instance from the port the request came in on, and names it in
three headers:

* ``X-Instance-ID``: the instance's uuid;
* ``X-Tenant-ID``: its project;
* ``X-Instance-ID-Signature``: the hex HMAC-SHA256 of the instance id
  keyed with ``[metadata] metadata_proxy_shared_secret``, which only the
  proxy and this service know, so an instance cannot claim another one.

With ``[metadata] insecure_unsigned_requests`` and no secret, the first two
headers alone name the instance (and any signature is ignored).
"""

import hashlib
import hmac

from oslo_log import log as logging

from nova_mini import exception

LOG = logging.getLogger(__name__)

INSTANCE_ID = 'X-Instance-ID'
TENANT_ID = 'X-Tenant-ID'
SIGNATURE = 'X-Instance-ID-Signature'


def sign(secret, instance_id):
    """Return the signature a proxy sends for ``instance_id``.

    :param secret: the shared secret.
    :param instance_id: the instance's uuid.
    :returns: the HMAC-SHA256, hex.
    """
    return hmac.new(secret.encode('utf-8'), instance_id.encode('utf-8'),
                    hashlib.sha256).hexdigest()


def check_config(conf, warn=True):
    """Refuse a configuration without a secret unless it says, explicitly,
    that unsigned requests are acceptable.

    :param conf: the configuration.
    :param warn: log a warning about the insecure ones (once, at start:
        not in every worker).
    :raises nova_mini.exception.MetadataConfigError: with one line naming
        the options.
    """
    group = conf.metadata
    if group.metadata_proxy_shared_secret:
        if group.insecure_unsigned_requests and warn:
            LOG.warning('[metadata] insecure_unsigned_requests is ignored: '
                        'metadata_proxy_shared_secret is set, so every '
                        'request must be signed.')
        return
    if not group.insecure_unsigned_requests:
        raise exception.MetadataConfigError(
            reason='[metadata] metadata_proxy_shared_secret is not set: '
                   'set the secret shared with the metadata proxy, or set '
                   '[metadata] insecure_unsigned_requests = true to serve '
                   'unsigned requests.')
    if warn:
        LOG.warning('[metadata] metadata_proxy_shared_secret is not set '
                    'and insecure_unsigned_requests is: any caller that '
                    'names an instance id and its project in X-Instance-ID '
                    'and X-Tenant-ID reads that instance\'s metadata.')


class RequestIdentity(object):
    """Reads and checks the identity headers of requests.

    :param secret: the shared secret; empty for unsigned requests (only
        with ``check_config``'s consent).
    """

    def __init__(self, secret):
        self._secret = secret

    @classmethod
    def from_conf(cls, conf):
        """Build the identity rules of ``[metadata]``.

        :raises nova_mini.exception.MetadataConfigError: see check_config.
        """
        check_config(conf, warn=False)
        return cls(conf.metadata.metadata_proxy_shared_secret)

    @property
    def signed(self):
        return bool(self._secret)

    def claim(self, headers, remote_address=None):
        """Return the instance and project a request claims, its signature
        checked.

        :param headers: the request's headers.
        :param remote_address: the caller's address, for the log.
        :returns: ``(instance id, project id)``.
        :raises nova_mini.exception.MetadataRequestInvalid: a header is
            missing or repeated.
        :raises nova_mini.exception.MetadataSignatureInvalid: a wrong
            signature.
        """
        instance_id = headers.get(INSTANCE_ID)
        tenant_id = headers.get(TENANT_ID)
        signature = headers.get(SIGNATURE)
        # Nova's order of checks, and its words.
        if instance_id is None:
            problem = '%s header is missing from request.' % INSTANCE_ID
        elif self.signed and signature is None:
            problem = '%s header is missing from request.' % SIGNATURE
        elif tenant_id is None:
            problem = '%s header is missing from request.' % TENANT_ID
        # NOTE: WSGI servers join repeated headers with a comma; neither
        # an instance uuid nor a project id has one.
        elif ',' in instance_id:
            problem = 'Multiple %s headers found within request.' % (
                INSTANCE_ID)
        elif ',' in tenant_id:
            problem = 'Multiple %s headers found within request.' % (
                TENANT_ID)
        else:
            problem = None
        if problem:
            raise exception.MetadataRequestInvalid(reason=problem)
        if self.signed:
            self._check_signature(instance_id, signature, remote_address)
        return instance_id, tenant_id

    def _check_signature(self, instance_id, signature, remote_address):
        expected = sign(self._secret, instance_id).encode('ascii')
        # Bytes, so that a signature that is not ASCII is just wrong (a
        # str one would make compare_digest raise TypeError).
        if hmac.compare_digest(expected, signature.encode('utf-8')):
            return
        # NOTE: Nova logs the signature it got; neither it nor the secret
        # belongs in a log.
        LOG.warning('%s does not match the expected signature for '
                    'instance %s; request from %s', SIGNATURE, instance_id,
                    remote_address or 'an unknown address')
        raise exception.MetadataSignatureInvalid()
