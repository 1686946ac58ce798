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

"""The virtual media images of a redfish deploy, live
(nova_mini.conductor.deploy_images): published in the http_root of the
images web server (gunicorn, nova_mini.wsgi.httpboot) and inserted into
the virtual media of sushy-tools' emulator by raw Redfish requests
(InsertMedia), which the emulator answers only once it has downloaded
the whole image from that web server:

* a boot ISO given by URL (downloaded, cached, published) and a config
  drive (gzip + base64) in the Cd and the Floppy; the emulator's copies
  are the published bytes; the web server logged the emulator's GETs;
  after clean_up the emulator is refused the same URL (400);
* an ISO of the stack's real Glance, fetched with the conductor's
  service credentials ([keystone_authtoken]) and its checksum verified;
  a raw image refused with Ironic's message.
"""

import base64
import gzip
import io
import os
import uuid

from keystoneauth1 import loading as ks_loading
import pycdlib
import pytest
import requests

from nova_mini.conductor import deploy_images
from nova_mini.conductor import glance_images
from nova_mini.drivers.redfish import errors
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.tests.fixtures import builders
from nova_mini.tests.live.images_server import images_server  # noqa: F401
from nova_mini_deploy import glance as glance_harness

INSERT = '/Actions/VirtualMedia.InsertMedia'
EJECT = '/Actions/VirtualMedia.EjectMedia'


def _iso(seed, size):
    """A real ISO 9660 image (Glance checks the data of an iso image)
    holding ``size`` bytes of ``seed``.
    """
    payload = builders.seeded_bytes(seed, size)
    image = pycdlib.PyCdlib()
    image.new(interchange_level=3, vol_ident='BOOT')
    image.add_fp(io.BytesIO(payload), len(payload), '/PAYLOAD.BIN;1')
    out = io.BytesIO()
    image.write_fp(out)
    image.close()
    return out.getvalue()


def _post(emulator, path, body):
    return requests.post(emulator.url + path, json=body, timeout=60,
                         auth=emulator.auth, verify=emulator.verify)


def _get(emulator, path):
    return requests.get(emulator.url + path, timeout=10, auth=emulator.auth,
                        verify=emulator.verify).json()


def _downloaded(emulator, name):
    """The bytes of the emulator's copy of ``name``, or None."""
    for top, _dirs, names in os.walk(emulator.tmp_dir):
        if name in names:
            with open(os.path.join(top, name), 'rb') as f:
                return f.read()
    return None


def _node(**instance_info):
    return node_obj.Node(uuid=str(uuid.uuid4()), instance_info=instance_info)


@pytest.fixture
def media_conf(conf, images_server, tmp_path):  # noqa: F811
    conf.config(http_root=images_server.http_root,
                http_url=images_server.url,
                iso_master_path=str(tmp_path / 'master'), group='deploy')
    return conf


def test_published_images_inserted_into_the_emulator(
        media_conf, images_server, redfish_emulators):  # noqa: F811
    iso = builders.seeded_bytes('boot', 3 * 1024 * 1024)
    drive = builders.seeded_bytes('drive', 64 * 1024)
    sources = os.path.join(images_server.http_root, 'sources')
    os.makedirs(sources, exist_ok=True)
    with open(os.path.join(sources, 'boot.iso'), 'wb') as f:
        f.write(iso)
    buf = gzip.compress(drive, mtime=0)
    node = _node(boot_iso=images_server.url + '/sources/boot.iso',
                 configdrive=base64.b64encode(buf).decode())
    boot_url, drive_url = deploy_images.prepare(None, node)
    assert boot_url == '%s/redfish/boot-%s.iso' % (images_server.url,
                                                   node.uuid)
    assert drive_url == '%s/redfish/configdrive-%s' % (images_server.url,
                                                       node.uuid)

    emulator = redfish_emulators(systems=1, power_delay=(0, 0))
    media = emulator.systems[0]['system_id'] + '/VirtualMedia'
    resp = _post(emulator, media + '/Cd' + INSERT,
                 {'Image': boot_url, 'Inserted': True})
    assert resp.status_code == 204, resp.text
    resp = _post(emulator, media + '/Floppy' + INSERT,
                 {'Image': drive_url, 'Inserted': True})
    assert resp.status_code == 204, resp.text
    cd = _get(emulator, media + '/Cd')
    floppy = _get(emulator, media + '/Floppy')
    assert (cd['Image'], cd['Inserted']) == (boot_url, True)
    assert (floppy['Image'], floppy['Inserted']) == (drive_url, True)
    # The emulator holds what was published, whole.
    assert _downloaded(emulator, 'boot-%s.iso' % node.uuid) == iso
    assert _downloaded(emulator, 'configdrive-%s' % node.uuid) == drive
    with open(images_server.log_path) as f:
        log = f.read()
    assert '"GET /redfish/boot-%s.iso HTTP/1.1" 200' % node.uuid in log
    assert '"GET /redfish/configdrive-%s HTTP/1.1" 200' % node.uuid in log

    for device in ('Cd', 'Floppy'):
        assert _post(emulator, media + '/' + device + EJECT,
                     {}).status_code == 204
    deploy_images.clean_up(node)
    assert not os.path.exists(os.path.join(
        images_server.http_root, 'redfish', 'boot-%s.iso' % node.uuid))
    # Withdrawn: the web server answers 404, the emulator refuses it.
    resp = _post(emulator, media + '/Cd' + INSERT,
                 {'Image': boot_url, 'Inserted': True})
    assert resp.status_code == 400
    assert _get(emulator, media + '/Cd')['Inserted'] is False


@pytest.fixture
def stack_conf(media_conf, stack):
    # The conductor's config: the stack's (Keystone's service user in
    # [keystone_authtoken], Glance in its catalog) and the images server.
    media_conf.conf(['--config-file', stack.nova.conf_path],
                    project='nova_mini', default_config_files=[],
                    default_config_dirs=[])
    # The conf fixture's noauth2 override would hide the file's keystone.
    media_conf.config(auth_strategy='keystone', group='api')
    yield media_conf
    # Loading the service's credentials registered the options of its
    # auth plugin (auth_url is required): unregistered, or the next
    # test's CONF([]) would refuse to parse.
    glance_images._AUTH.clear()
    conf_obj = media_conf.conf
    conf_obj.clear()
    plugin = stack_auth_type(stack)
    conf_obj.unregister_opts(
        ks_loading.get_auth_plugin_conf_options(plugin),
        group=glance_images.AUTH_GROUP)


def stack_auth_type(stack):
    return stack.nova.config_sections()['keystone_authtoken']['auth_type']


def _upload_iso(stack, name, data):
    session = stack.glance.session('admin', stack.passwords['admin'],
                                   'admin')
    image = session.post(stack.glance.url + '/v2/images', json={
        'name': name, 'disk_format': 'iso', 'container_format': 'bare',
        'visibility': 'public'}).json()
    session.put(stack.glance.url + '/v2/images/%s/file' % image['id'],
                data=data,
                headers={'Content-Type': 'application/octet-stream'})
    return session, image['id']


def test_glance_iso_inserted_into_the_emulator(
        stack, stack_conf, images_server, redfish_emulators):  # noqa: F811
    data = _iso('glance-iso', 2 * 1024 * 1024)
    session, image_id = _upload_iso(stack, 'boot-iso-%s' % uuid.uuid4().hex,
                                    data)
    try:
        node = _node(image_source=image_id)
        boot_url, drive_url = deploy_images.prepare(None, node)
        assert drive_url is None
        emulator = redfish_emulators(systems=1, power_delay=(0, 0))
        media = emulator.systems[0]['system_id'] + '/VirtualMedia'
        resp = _post(emulator, media + '/Cd' + INSERT,
                     {'Image': boot_url, 'Inserted': True})
        assert resp.status_code == 204, resp.text
        assert _downloaded(emulator, 'boot-%s.iso' % node.uuid) == data
        deploy_images.clean_up(node)
    finally:
        session.delete(stack.glance.url + '/v2/images/%s' % image_id)


def test_glance_raw_image_refused(stack, stack_conf):
    # One auth plugin (and token) for the conductor's Glance calls.
    assert glance_images._glance_auth() is glance_images._glance_auth()
    node = _node(image_source=glance_harness.CIRROS_ID)
    with pytest.raises(errors.InvalidParameterValue) as info:
        deploy_images.prepare(None, node)
    assert str(info.value) == (
        'Unable to find kernel, ramdisk for building ISO, or explicit ISO '
        'for %s' % node.uuid)


def test_the_stack_serves_the_conductors_http_root(stack):
    server = stack.images_server
    assert stack.status()['nova-mini-images'] is not None
    directory = os.path.join(server.http_root, 'redfish')
    os.makedirs(directory, exist_ok=True)
    name = 'probe-%s' % uuid.uuid4().hex
    with open(os.path.join(directory, name), 'wb') as f:
        f.write(b'probe')
    try:
        resp = requests.get('%s/redfish/%s' % (server.url, name), timeout=10)
        assert (resp.status_code, resp.content) == (200, b'probe')
    finally:
        os.unlink(os.path.join(directory, name))
    # The daemons' config names it for the conductors.
    with open(stack.nova.conf_path) as f:
        assert 'http_url = %s\n' % server.url in f.read()
