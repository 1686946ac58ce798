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

"""nova_mini.conductor.deploy_images on a temporary http_root, with a
small HTTP server of the test playing Glance's image API (GET
/v2/images/{id} and its /file) and a plain web server. The live test
(tests/live/test_virtual_media_images_live.py) uses the stack's real
Glance and the sushy-tools emulator.
"""

import base64
import gzip
import hashlib
import http.server
import io
import json
import os
import stat
import threading
import time
import uuid

import pytest

from nova_mini.conductor import deploy_images
from nova_mini.conductor import glance_images
from nova_mini.conductor import image_cache
from nova_mini.conf import deploy as deploy_conf
from nova_mini.drivers.redfish import errors
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.tests.fixtures import builders

HTTP_URL = 'http://192.0.2.10:8080'


def _iso(seed, size=300000):
    return builders.seeded_bytes(seed, size)


def _gzip_b64(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0) as f:
        f.write(data)
    return base64.b64encode(buf.getvalue()).decode()


class _Server(object):
    """Glance's image API and plain files over HTTP, counting the
    downloads of each path.
    """

    def __init__(self):
        self.images = {}
        self.files = {}
        self.downloads = {}
        # GETs of each image's record; when record_gate is set, they
        # wait for it after taking the record (record_entered set).
        self.record_reads = {}
        self.record_gate = None
        self.record_entered = threading.Event()
        self.delay = 0
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body, ctype='application/octet-stream'):
                self.send_response(status)
                self.send_header('Content-Type', ctype)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                path = self.path
                parts = path.strip('/').split('/')
                if path in server.files:
                    body = server.files[path]
                elif parts[:2] == ['v2', 'images'] and len(parts) == 3:
                    image = server.images.get(parts[2])
                    if image is None:
                        return self._send(404, b'{}', 'application/json')
                    body = json.dumps(image[0]).encode()
                    with server.lock:
                        server.record_reads[parts[2]] = \
                            server.record_reads.get(parts[2], 0) + 1
                    if server.record_gate is not None:
                        server.record_entered.set()
                        server.record_gate.wait(60)
                    return self._send(200, body, 'application/json')
                elif (parts[:2] == ['v2', 'images'] and len(parts) == 4
                        and parts[3] == 'file' and parts[2] in server.images):
                    body = server.images[parts[2]][1]
                else:
                    return self._send(404, b'')
                with server.lock:
                    server.downloads[path] = server.downloads.get(path,
                                                                  0) + 1
                time.sleep(server.delay)
                self._send(200, body)

        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                     Handler)
        self.url = 'http://127.0.0.1:%d' % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()

    def add_image(self, data, disk_format='iso', status='active',
                  algo='sha512', value=None, size=None, **extra):
        image_id = str(uuid.uuid4())
        record = dict(extra, id=image_id, status=status,
                      disk_format=disk_format, container_format='bare',
                      size=len(data) if size is None else size,
                      os_hash_algo=algo,
                      os_hash_value=(value or
                                     hashlib.new(algo, data).hexdigest()),
                      checksum=hashlib.md5(data).hexdigest())
        self.images[image_id] = (record, data)
        return image_id

    def image_downloads(self, image_id):
        return self.downloads.get('/v2/images/%s/file' % image_id, 0)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    srv = _Server()
    yield srv
    srv.stop()


@pytest.fixture
def images(conf, tmp_path, server):
    conf.config(http_root=str(tmp_path / 'httpboot'),
                iso_master_path=str(tmp_path / 'master'),
                http_url=HTTP_URL, group='deploy')
    conf.config(endpoint_override=server.url, group='glance')
    return tmp_path


def _node(**instance_info):
    return node_obj.Node(uuid=str(uuid.uuid4()), instance_info=instance_info)


def _public(tmp_path, name=None):
    directory = tmp_path / 'httpboot' / 'redfish'
    return directory / name if name else directory


def _master(server, image_id):
    """The name of the image's copy in the cache."""
    return deploy_images.glance_cache_name(server.images[image_id][0])


def _listing(path):
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def _visible(path):
    return [n for n in _listing(path) if not n.startswith('.')]


def test_url_passed_as_is_with_http_source(images, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    node = _node(boot_iso='https://images.example.com/boot.iso')
    assert deploy_images.prepare(None, node) == (
        'https://images.example.com/boot.iso', None)
    assert _listing(_public(images)) == []


def test_instance_info_chooses_http_source(images, server):
    # The default (local) would download it: the node's choice wins.
    url = server.url + '/boot.iso'
    node = _node(boot_iso=url, ramdisk_image_download_source='http')
    assert deploy_images.prepare(None, node) == (url, None)
    assert server.downloads == {}


def test_url_downloaded_and_served_with_local_source(images, server):
    data = _iso('url')
    server.files['/boot.iso'] = data
    first, second = (_node(boot_iso=server.url + '/boot.iso')
                     for _ in range(2))
    for node in (first, second):
        iso, drive = deploy_images.prepare(None, node)
        name = 'boot-%s.iso' % node.uuid
        assert iso == '%s/redfish/%s' % (HTTP_URL, name)
        assert drive is None
        assert _public(images, name).read_bytes() == data
    # Cached: downloaded once for both nodes.
    assert server.downloads == {'/boot.iso': 1}


def test_configdrive_decoded_and_placed(images, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    drive = _iso('drive', 20000)
    node = _node(boot_iso='http://images.example.com/b.iso',
                 configdrive=_gzip_b64(drive))
    iso, url = deploy_images.prepare(None, node)
    name = 'configdrive-%s' % node.uuid
    assert url == '%s/redfish/%s' % (HTTP_URL, name)
    path = _public(images, name)
    assert path.read_bytes() == drive
    # Ironic's choices: the files 0644, the directory 0755.
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert stat.S_IMODE(_public(images).stat().st_mode) == 0o755
    assert _listing(_public(images)) == [name]


def test_file_permission_option(images, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    conf.config(file_permission='0o640', group='redfish')
    node = _node(boot_iso='http://images.example.com/b.iso',
                 configdrive=_gzip_b64(b'x' * 100))
    deploy_images.prepare(None, node)
    path = _public(images, 'configdrive-%s' % node.uuid)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.parametrize('value, expected', [
    ('0o644', 0o644), ('644', 0o644), ('600', 0o600), (0o755, 0o755)])
def test_permission_type(value, expected):
    assert deploy_conf.Permission()(value) == expected


@pytest.mark.parametrize('value', ['9', '0o1000', 'rw-r--r--'])
def test_permission_type_refuses(value):
    with pytest.raises(ValueError):
        deploy_conf.Permission()(value)


def test_configdrive_url_downloaded_and_decoded(images, server, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    drive = _iso('drive-url', 5000)
    server.files['/cd.txt'] = _gzip_b64(drive).encode()
    server.files['/cd.iso'] = drive
    for path in ('/cd.txt', '/cd.iso'):
        node = _node(boot_iso='http://images.example.com/b.iso',
                     configdrive=server.url + path)
        deploy_images.prepare(None, node)
        assert _public(images, 'configdrive-%s' % node.uuid).read_bytes() \
            == drive


@pytest.mark.parametrize('content', [
    'not base64 at all!', base64.b64encode(b'plain, not gzip').decode(),
    base64.b64encode(gzip.compress(_iso('t', 5000), mtime=0)[:2000]).decode()],
    ids=['not-base64', 'not-gzip', 'truncated-gzip'])
def test_bad_configdrive_refused_and_nothing_left(images, conf, content):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    node = _node(boot_iso='http://images.example.com/b.iso',
                 configdrive=content)
    with pytest.raises(deploy_images.ImageCreationFailed):
        deploy_images.prepare(None, node)
    assert _listing(_public(images)) == []


def test_configdrive_larger_than_the_cap_refused(images, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    big = b'\0' * (deploy_images.CONFIGDRIVE_MAX_BYTES + 1)
    node = _node(boot_iso='http://images.example.com/b.iso',
                 configdrive=_gzip_b64(big))
    with pytest.raises(deploy_images.ImageCreationFailed,
                       match='larger than'):
        deploy_images.prepare(None, node)
    assert _listing(_public(images)) == []


def test_glance_iso_downloaded_verified_and_linked(images, server):
    data = _iso('glance')
    image_id = server.add_image(data)
    node = _node(image_source=image_id)
    iso, drive = deploy_images.prepare(None, node)
    name = 'boot-%s.iso' % node.uuid
    assert iso == '%s/redfish/%s' % (HTTP_URL, name)
    assert drive is None
    published = _public(images, name)
    assert published.read_bytes() == data
    assert stat.S_IMODE(published.stat().st_mode) == 0o644
    master = images / 'master' / _master(server, image_id)
    # One file: the cache's copy, linked into the web server's directory.
    assert os.path.samefile(master, published)
    assert master.stat().st_nlink == 2
    assert server.image_downloads(image_id) == 1


def test_changed_checksum_downloaded_again(images, server):
    # The same image id with other data and checksum: not the cached copy
    # of the former data (before: the copy, named by the id only).
    image_id = server.add_image(_iso('before'))
    first = _node(image_source=image_id)
    deploy_images.prepare(None, first)
    data = _iso('after')
    server.images[image_id][0].update(
        os_hash_value=hashlib.sha512(data).hexdigest(),
        checksum=hashlib.md5(data).hexdigest(), size=len(data))
    server.images[image_id] = (server.images[image_id][0], data)
    second = _node(image_source=image_id)
    deploy_images.prepare(None, second)
    assert _public(images, 'boot-%s.iso' % second.uuid).read_bytes() == data
    assert server.image_downloads(image_id) == 2
    # The first node keeps what it was given.
    assert _public(images, 'boot-%s.iso' % first.uuid).read_bytes() == \
        _iso('before')


def test_glance_md5_checksum_when_no_multihash(images, server):
    data = _iso('md5')
    image_id = server.add_image(data)
    record = server.images[image_id][0]
    record.update(os_hash_algo=None, os_hash_value=None)
    node = _node(image_source=image_id)
    deploy_images.prepare(None, node)
    assert _public(images, 'boot-%s.iso' % node.uuid).read_bytes() == data


def test_glance_image_naming_its_boot_iso(images, server):
    data = _iso('named')
    iso_id = server.add_image(data)
    image_id = server.add_image(b'qcow2 bits', disk_format='qcow2',
                                boot_iso_id=iso_id)
    node = _node(image_source=image_id)
    deploy_images.prepare(None, node)
    assert _public(images, 'boot-%s.iso' % node.uuid).read_bytes() == data
    assert server.image_downloads(image_id) == 0


def test_glance_image_not_iso_refused(images, server):
    image_id = server.add_image(b'raw disk', disk_format='raw')
    node = _node(image_source=image_id)
    with pytest.raises(errors.InvalidParameterValue) as info:
        deploy_images.prepare(None, node)
    assert str(info.value) == (
        'Unable to find kernel, ramdisk for building ISO, or explicit ISO '
        'for %s' % node.uuid)
    assert server.image_downloads(image_id) == 0


def test_glance_image_not_active_or_missing(images, server):
    queued = server.add_image(b'', status='queued')
    with pytest.raises(glance_images.ImageUnacceptable,
                       match='required to be in an active state'):
        deploy_images.prepare(None, _node(image_source=queued))
    missing = str(uuid.uuid4())
    with pytest.raises(glance_images.ImageNotFound):
        deploy_images.prepare(None, _node(image_source=missing))


def test_boot_iso_and_image_source_together_refused(images):
    node = _node(boot_iso='http://x/b.iso', image_source=str(uuid.uuid4()))
    with pytest.raises(errors.InvalidParameterValue,
                       match="An 'image_source' and 'boot_iso' parameter "
                             "may not be specified at the same time."):
        deploy_images.prepare(None, node)


def _nothing_left(tmp_path):
    assert _visible(tmp_path / 'master') == []
    assert _listing(_public(tmp_path)) == []


def test_checksum_mismatch_refused_nothing_left(images, server):
    data = _iso('bad')
    image_id = server.add_image(data, value='0' * 128)
    node = _node(image_source=image_id,
                 configdrive=_gzip_b64(b'drive'))
    with pytest.raises(image_cache.ImageChecksumError) as info:
        deploy_images.prepare(None, node)
    assert 'checksum is invalid or does not match' in str(info.value)
    _nothing_left(images)


@pytest.mark.parametrize('stated', [1000, 10 ** 9],
                         ids=['more-than-stated', 'fewer-than-stated'])
def test_size_other_than_stated_refused(images, server, stated):
    image_id = server.add_image(_iso('size', 5000), size=stated)
    with pytest.raises(image_cache.ImageDownloadFailed):
        deploy_images.prepare(None, _node(image_source=image_id))
    _nothing_left(images)


def test_image_larger_than_the_cache_not_downloaded(images, server, conf):
    conf.config(iso_cache_size=1, group='deploy')
    image_id = server.add_image(_iso('huge', 2 * 1024 * 1024))
    with pytest.raises(image_cache.ImageDownloadFailed,
                       match='iso_cache_size'):
        deploy_images.prepare(None, _node(image_source=image_id))
    assert server.image_downloads(image_id) == 0


def test_no_http_url_refused_before_downloading(images, server, conf):
    conf.config(http_url=None, group='deploy')
    image_id = server.add_image(_iso('nourl'))
    with pytest.raises(errors.InvalidParameterValue,
                       match=r'\[deploy\] http_url is not set'):
        deploy_images.prepare(None, _node(image_source=image_id))
    assert server.image_downloads(image_id) == 0


def test_external_http_url_wins(images, server, conf):
    conf.config(external_http_url='https://media.example.com:8443/',
                group='deploy')
    image_id = server.add_image(_iso('ext'))
    node = _node(image_source=image_id)
    assert deploy_images.prepare(None, node)[0] == (
        'https://media.example.com:8443/redfish/boot-%s.iso' % node.uuid)


def test_concurrent_prepare_downloads_once(images, server):
    data = _iso('concurrent', 500000)
    image_id = server.add_image(data)
    server.delay = 0.3
    nodes = [_node(image_source=image_id) for _ in range(8)]
    results, failures = {}, []
    barrier = threading.Barrier(len(nodes))

    def run(node):
        barrier.wait()
        try:
            results[node.uuid] = deploy_images.prepare(None, node)
        except Exception as exc:   # reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in nodes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    assert server.image_downloads(image_id) == 1
    master = images / 'master' / _master(server, image_id)
    assert master.stat().st_nlink == 1 + len(nodes)
    for node in nodes:
        assert _public(images, 'boot-%s.iso' % node.uuid).read_bytes() == \
            data


def _until(condition, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, 'condition not reached'
        time.sleep(0.01)


def _joined_next(image_id):
    reads = glance_images._READS.get(image_id)
    read = reads and reads['next']
    return read.joined if read else 0


def test_concurrent_prepare_reads_the_record_twice(images, server):
    # The first deploy's read of the image's record is held in Glance
    # until the others asked: they share the next read (before: one GET
    # of the record per deploy, 8).
    data = _iso('one-read', 200000)
    image_id = server.add_image(data)
    server.record_gate = threading.Event()
    nodes = [_node(image_source=image_id) for _ in range(8)]
    failures = []

    def run(node):
        try:
            deploy_images.prepare(None, node)
        except Exception as exc:   # reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in nodes]
    try:
        for t in threads:
            t.start()
        server.record_entered.wait(30)
        _until(lambda: _joined_next(image_id) == len(nodes) - 1 or
               server.record_reads.get(image_id) == len(nodes))
    finally:
        server.record_gate.set()
    for t in threads:
        t.join(60)
    assert failures == []
    assert server.record_reads[image_id] == 2
    assert server.image_downloads(image_id) == 1
    for node in nodes:
        assert _public(images, 'boot-%s.iso' % node.uuid).read_bytes() == \
            data
    assert glance_images._READS == {}


def test_record_read_in_flight_not_given_to_a_later_deploy(images, server):
    # A deploy asking while a read of the record is in flight gets a read
    # made after it asked: here the image was deactivated meanwhile.
    image_id = server.add_image(_iso('fresh'))
    server.record_gate = threading.Event()
    first, later = _node(image_source=image_id), _node(image_source=image_id)
    outcome = {}

    def run(node):
        try:
            outcome[node.uuid] = deploy_images.prepare(None, node)
        except Exception as exc:
            outcome[node.uuid] = exc

    threads = [threading.Thread(target=run, args=(first,))]
    try:
        threads[0].start()
        assert server.record_entered.wait(30)
        server.images[image_id][0]['status'] = 'deactivated'
        threads.append(threading.Thread(target=run, args=(later,)))
        threads[1].start()
        _until(lambda: _joined_next(image_id) == 1 or
               server.record_reads.get(image_id) == 2)
    finally:
        server.record_gate.set()
    for t in threads:
        t.join(60)
    assert outcome[first.uuid][0].endswith('boot-%s.iso' % first.uuid)
    assert isinstance(outcome[later.uuid], glance_images.ImageUnacceptable)
    assert server.record_reads[image_id] == 2
    assert not _public(images, 'boot-%s.iso' % later.uuid).exists()


def test_failed_record_read_shared_then_forgotten(images, server):
    missing = str(uuid.uuid4())
    for _ in range(2):
        with pytest.raises(glance_images.ImageNotFound):
            deploy_images.prepare(None, _node(image_source=missing))
    assert glance_images._READS == {}


def test_without_cache_downloads_into_http_root(images, server, conf):
    conf.config(iso_master_path='', group='deploy')
    data = _iso('nocache')
    image_id = server.add_image(data)
    node = _node(image_source=image_id)
    deploy_images.prepare(None, node)
    deploy_images.prepare(None, node)
    assert _public(images, 'boot-%s.iso' % node.uuid).read_bytes() == data
    assert server.image_downloads(image_id) == 2
    assert not (images / 'master').exists()


def test_clean_up_removes_only_the_nodes_files(images, server):
    image_id = server.add_image(_iso('clean'))
    one = _node(image_source=image_id, configdrive=_gzip_b64(b'one'))
    two = _node(image_source=image_id, configdrive=_gzip_b64(b'two'))
    deploy_images.prepare(None, one)
    deploy_images.prepare(None, two)
    # A partial file the conductor left (killed mid-write).
    (_public(images) / ('.tmp-configdrive-%s1234' % one.uuid)).write_bytes(
        b'partial')
    deploy_images.clean_up(one)
    assert _listing(_public(images)) == [
        'boot-%s.iso' % two.uuid, 'configdrive-%s' % two.uuid]
    master = images / 'master' / _master(server, image_id)
    assert master.stat().st_nlink == 2
    deploy_images.clean_up(two)
    deploy_images.clean_up(two)   # twice: nothing to do, no error
    assert _listing(_public(images)) == []
    # Kept for the next deploy of the image, no node uses it.
    assert master.stat().st_nlink == 1


def test_clean_up_before_anything_published(images):
    deploy_images.clean_up(_node())
    assert not _public(images).exists()


def test_cache_expires_unused_images(images, server, conf):
    used_id = server.add_image(_iso('used'))
    unused_id = server.add_image(_iso('unused'))
    node = _node(image_source=used_id)
    deploy_images.prepare(None, node)
    gone = _node(image_source=unused_id)
    deploy_images.prepare(None, gone)
    deploy_images.clean_up(gone)
    conf.config(iso_cache_ttl=0, group='deploy')
    removed = image_cache.clean_cache()
    assert [os.path.basename(p) for p in removed] == [
        _master(server, unused_id)]
    # The image a node uses stays, expired or not.
    assert _visible(images / 'master') == [_master(server, used_id)]


def test_cache_size_removes_least_recently_used(images, server, conf):
    ids = [server.add_image(_iso('lru-%d' % i, 400 * 1024))
           for i in range(3)]
    for image_id in ids:
        node = _node(image_source=image_id)
        deploy_images.prepare(None, node)
        deploy_images.clean_up(node)
        time.sleep(0.02)
    assert len(_visible(images / 'master')) == 3
    # 1 MiB holds two of them: the oldest goes.
    conf.config(iso_cache_size=1, group='deploy')
    removed = image_cache.clean_cache()
    assert [os.path.basename(p) for p in removed] == [
        _master(server, ids[0])]
    assert _visible(images / 'master') == sorted(
        _master(server, i) for i in ids[1:])


def test_cache_removes_partial_downloads_a_dead_conductor_left(images,
                                                               server):
    image_id = server.add_image(_iso('partial'))
    deploy_images.prepare(None, _node(image_source=image_id))
    master = images / 'master'
    old = master / ('.tmp-glance-%s.isoabcd' % uuid.uuid4())
    fresh = master / ('.tmp-glance-%s.isoefgh' % uuid.uuid4())
    old.write_bytes(b'half')
    fresh.write_bytes(b'being written')
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    image_cache.clean_cache()
    assert not old.exists()
    # Another download in progress: kept.
    assert fresh.exists()


def test_cache_keeps_an_image_a_deploy_holds(images, server, conf):
    image_id = server.add_image(_iso('held'))
    node = _node(image_source=image_id)
    deploy_images.prepare(None, node)
    deploy_images.clean_up(node)
    conf.config(iso_cache_ttl=0, group='deploy')
    name = _master(server, image_id)
    # A deploy about to link it holds its lock: not removed under it.
    with image_cache.locked(str(images / 'master'), name):
        assert image_cache.clean_cache() == []
    assert [os.path.basename(p) for p in image_cache.clean_cache()] == [
        name]


def test_modes_whatever_the_umask(images, conf):
    conf.config(ramdisk_image_download_source='http', group='deploy')
    node = _node(boot_iso='http://images.example.com/b.iso',
                 configdrive=_gzip_b64(b'drive'))
    old = os.umask(0o077)
    try:
        deploy_images.prepare(None, node)
    finally:
        os.umask(old)
    for directory in (_public(images), images / 'httpboot'):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o755
    path = _public(images, 'configdrive-%s' % node.uuid)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
