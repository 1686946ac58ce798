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

"""Key material of key pairs: fingerprints of imported keys (which checks
them) and new key pairs, with the ``cryptography`` package.

Fingerprints are Nova's: an OpenSSH public key's is the MD5 of its
base64 body, an X.509 certificate's the SHA-1 of the certificate, both as
colon-separated hex pairs. A generated ``ssh`` key pair is a 2048-bit RSA
key (private key in PEM, public key in OpenSSH form); a generated
``x509`` one a self-signed certificate for the user (as Nova makes for
WinRM), with its private key.
"""

import base64
import datetime
import hashlib

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

from nova_mini import exception

KEY_BITS = 2048
# How long a generated certificate is valid (Nova: ten years).
CERT_DAYS = 3650


def _pairs(hex_digest):
    return ':'.join(hex_digest[i:i + 2] for i in range(0, len(hex_digest), 2))


def ssh_fingerprint(public_key):
    """The fingerprint of an OpenSSH public key, which must load.

    :raises nova_mini.exception.InvalidKeypair: it is not one.
    """
    try:
        serialization.load_ssh_public_key(public_key.encode('utf-8'))
        body = base64.b64decode(public_key.split()[1])
    except Exception:
        raise exception.InvalidKeypair(
            reason='failed to generate fingerprint')
    return _pairs(hashlib.md5(body, usedforsecurity=False).hexdigest())


def x509_fingerprint(pem):
    """The fingerprint of a PEM X.509 certificate, which must load.

    :raises nova_mini.exception.InvalidKeypair: it is not one.
    """
    try:
        cert = x509.load_pem_x509_certificate(pem.encode('utf-8'))
    except (ValueError, TypeError) as exc:
        raise exception.InvalidKeypair(
            reason='failed to generate X509 fingerprint. Error message: %s'
            % exc)
    return _pairs(cert.fingerprint(hashes.SHA1()).hex())


def fingerprint(public_key, key_type):
    if key_type == 'x509':
        return x509_fingerprint(public_key)
    return ssh_fingerprint(public_key)


def _private_key():
    return rsa.generate_private_key(public_exponent=65537,
                                    key_size=KEY_BITS)


def generate_ssh():
    """``(private_key, public_key, fingerprint)`` of a new RSA key."""
    key = _private_key()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode('ascii')
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode('ascii')
    public = '%s Generated-by-nova_mini' % public
    return private, public, ssh_fingerprint(public)


def generate_x509(user_id):
    """``(private_key, certificate, fingerprint)``: a self-signed client
    certificate whose common name is ``user_id``.
    """
    key = _private_key()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                            user_id or 'nova_mini')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
            .add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode('ascii')
    pem = cert.public_bytes(serialization.Encoding.PEM).decode('ascii')
    return private, pem, x509_fingerprint(pem)


def generate(key_type, user_id):
    if key_type == 'x509':
        return generate_x509(user_id)
    return generate_ssh()
