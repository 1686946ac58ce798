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

"""The identity of a metadata request without the service: the signature
Neutron's metadata proxy sends, and the configuration that must name a
secret (the headers checked on a served request: the functional
test_identity.py).
"""

import hashlib
import hmac

import pytest

from nova_mini import exception
from nova_mini.metadata import identity


def test_signature_is_hex_hmac_sha256_of_the_instance_id():
    # What Neutron's metadata agent sends, computed independently.
    expected = hmac.new(b's3cret', b'5a4f1c52-0d9b-4c1e-8e7f-1a2b3c4d5e6f',
                        hashlib.sha256).hexdigest()
    assert identity.sign('s3cret', '5a4f1c52-0d9b-4c1e-8e7f-1a2b3c4d5e6f'
                         ) == expected
    assert len(expected) == 64


def test_no_secret_refuses_to_start(conf):
    conf.config(metadata_proxy_shared_secret='', group='metadata')
    with pytest.raises(exception.MetadataConfigError) as raised:
        identity.check_config(conf.conf)
    message = raised.value.format_message()
    assert '\n' not in message
    assert 'metadata_proxy_shared_secret' in message
    assert 'insecure_unsigned_requests' in message
