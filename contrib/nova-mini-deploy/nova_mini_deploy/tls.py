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

"""Throw-away certificates: a private CA (EC P-256, SHA-256) and the
server certificates it signs, for the emulators of a test stack and for
nova_mini's TLS tests (nova_mini.tests.fixtures.http_servers).
"""

import datetime
import ipaddress

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID


def validity(before, after):
    """``(not before, not after)``: now less ``before``, now plus
    ``after`` (timedeltas), UTC.
    """
    now = datetime.datetime.now(datetime.timezone.utc)
    return now - before, now + after


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key_usage(**allowed):
    usage = dict.fromkeys(
        ('digital_signature', 'content_commitment', 'key_encipherment',
         'data_encipherment', 'key_agreement', 'key_cert_sign', 'crl_sign',
         'encipher_only', 'decipher_only'), False)
    usage.update(allowed)
    return x509.KeyUsage(**usage)


def make_ca(common_name, valid):
    """A new CA named ``common_name``, valid ``valid`` (a pair of
    datetimes): ``(key, certificate)``.
    """
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name)).issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0]).not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=0),
                       critical=True)
        .add_extension(_key_usage(key_cert_sign=True, crl_sign=True),
                       critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(
            key.public_key()), critical=False)
        .sign(key, hashes.SHA256()))
    return key, certificate


def issue(ca_key, ca_certificate, hosts, valid):
    """A server certificate the CA signs for ``hosts`` (IP addresses and
    DNS names; the first is its common name), valid ``valid``:
    ``(key, certificate)``.
    """
    key = ec.generate_private_key(ec.SECP256R1())
    names = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    ca_ski = ca_certificate.extensions.get_extension_for_class(
        x509.SubjectKeyIdentifier).value
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name(hosts[0]))
        .issuer_name(ca_certificate.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0]).not_valid_after(valid[1])
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                       critical=True)
        .add_extension(_key_usage(digital_signature=True,
                                  key_agreement=True), critical=True)
        .add_extension(x509.ExtendedKeyUsage(
            [ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(
            key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                ca_ski), critical=False)
        .sign(ca_key, hashes.SHA256()))
    return key, certificate


def pem_certificate(certificate):
    return certificate.public_bytes(serialization.Encoding.PEM)


def pem_key(key):
    """The private key, PKCS#8 PEM, unencrypted."""
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
