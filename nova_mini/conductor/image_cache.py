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

"""The files of nova_mini.conductor.deploy_images: written under a
temporary name in their final directory and renamed into place, the
downloads of one image serialised by a lock file (``fcntl.flock``, which
also serialises the threads of one process, each opening the file), and
the cache of downloaded images in ``[deploy] iso_master_path`` (expired
after ``iso_cache_ttl``, least recently used first beyond
``iso_cache_size``; an image some node's published file links to is in
use and stays).
"""

import contextlib
import fcntl
import os
import tempfile
import time
import uuid

from oslo_log import log as logging
from oslo_utils import strutils
import requests

from nova_mini import conf
from nova_mini import exception

CONF = conf.CONF
LOG = logging.getLogger(__name__)

CHUNK = 1024 * 1024
# Partial files and lock files: the web server does not serve them.
TMP_PREFIX = '.tmp-'
# Seconds after which an untouched partial download is removed.
STALE_PARTIAL = 3600


class ImageDownloadFailed(exception.NovaMiniException):
    msg_fmt = 'Failed to download image %(image_href)s, reason: %(reason)s'


class ImageChecksumError(ImageDownloadFailed):
    msg_fmt = ('Failed to download image %(image_href)s, reason: The '
               'supplied image checksum is invalid or does not match.')


def makedirs(path):
    """Make the directory ``path`` and its missing parents, 0755 whatever
    the umask (the web server's user must go through them).
    """
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        try:
            os.mkdir(directory)
        except FileExistsError:
            continue
        os.chmod(directory, 0o755)


@contextlib.contextmanager
def temporary(directory, name):
    """A file object on a temporary file of ``directory``, whose path is
    ``f.name``; removed unless the caller renamed it away.
    """
    fd, path = tempfile.mkstemp(dir=directory, prefix=TMP_PREFIX + name)
    os.close(fd)
    try:
        with open(path, 'wb') as f:
            yield f
    finally:
        if os.path.exists(path):
            os.unlink(path)


def finish(f, path, mode):
    """Flush ``f`` to disk and rename it to ``path`` with ``mode``."""
    f.flush()
    os.fsync(f.fileno())
    os.chmod(f.name, mode)
    os.replace(f.name, path)


@contextlib.contextmanager
def locked(directory, name, wait=True):
    """Hold the lock of ``name`` (a file of ``directory``): one thread or
    process at a time. Yields True; without ``wait``, False at once when
    another holds it.
    """
    path = os.path.join(directory, '.%s.lock' % name)
    with open(path, 'a') as f:
        try:
            fcntl.flock(f.fileno(),
                        fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def link_or_copy(source, directory, name, mode):
    """Make ``directory/name`` the file ``source`` with ``mode``: a hard
    link (same inode), or a copy across file systems; replaced at once.
    """
    path = os.path.join(directory, name)
    os.chmod(source, mode)
    tmp = os.path.join(directory,
                       '%s%s-%s' % (TMP_PREFIX, name, uuid.uuid4().hex))
    try:
        os.link(source, tmp)
    except OSError as exc:
        LOG.debug('Cannot hard link %s into %s (%s): copying it',
                  source, directory, exc)
        with temporary(directory, name) as f, open(source, 'rb') as src:
            while True:
                chunk = src.read(CHUNK)
                if not chunk:
                    break
                f.write(chunk)
            finish(f, path, mode)
        return
    os.replace(tmp, path)


def cache_limit():
    return CONF.deploy.iso_cache_size * 1024 * 1024


def _cached_files(directory):
    found = []
    stale = time.time() - STALE_PARTIAL
    for name in os.listdir(directory):
        if name.startswith(TMP_PREFIX):
            _remove_stale(os.path.join(directory, name), stale)
        if name.startswith('.'):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        found.append((path, st))
    return found


def _remove_stale(path, stale):
    # A download writes its partial file at least every read timeout: one
    # untouched for STALE_PARTIAL is what a killed conductor left.
    try:
        if os.stat(path).st_mtime < stale:
            os.unlink(path)
            LOG.info('Removed %s, a download that did not finish', path)
    except OSError:
        pass


def clean_cache(keep=None):
    """Remove the cached images no node uses (link count 1) that expired
    (``iso_cache_ttl``), then the least recently used ones while the
    cache is larger than ``iso_cache_size``. ``keep``: a path not to
    remove. Returns the removed paths.
    """
    directory = CONF.deploy.iso_master_path
    if not directory or not os.path.isdir(directory):
        return []
    files = _cached_files(directory)
    removed = []
    expire = time.time() - CONF.deploy.iso_cache_ttl * 60
    # A hard link made or removed changes the inode's ctime: the last
    # time a node took or gave back the image.
    unused = sorted(((path, st) for path, st in files
                     if st.st_nlink == 1 and path != keep),
                    key=lambda item: item[1].st_ctime)
    total = sum(st.st_size for _, st in files)
    for path, st in unused:
        if st.st_ctime >= expire and total <= cache_limit():
            continue
        # Under the image's lock, taken only if free: a deploy holding it
        # is about to link the image.
        with locked(directory, os.path.basename(path), wait=False) as mine:
            try:
                if not mine or os.stat(path).st_nlink != 1:
                    continue
                os.unlink(path)
            except OSError as exc:
                LOG.warning('Could not remove cached image %s: %s', path,
                            exc)
                continue
        total -= st.st_size
        removed.append(path)
    if removed:
        LOG.info('Image cache %s: removed %s', directory,
                 ', '.join(os.path.basename(p) for p in removed))
    return removed


def download_to(f, chunks, image_href, limit, hasher=None):
    """Write the byte strings of ``chunks`` to ``f``, at most ``limit``
    bytes; the number written.
    """
    written = 0
    for chunk in chunks:
        if not chunk:
            continue
        written += len(chunk)
        if written > limit:
            raise ImageDownloadFailed(
                image_href=image_href,
                reason='the image is larger than %d bytes' % limit)
        if hasher is not None:
            hasher.update(chunk)
        f.write(chunk)
    return written


def cached(name, fetch, use):
    """Call ``use(path)`` with the path of the cached image ``name``
    (under its lock, so that the cache's cleaning cannot remove it
    meanwhile), calling ``fetch(f)`` first to download it into the file
    object ``f`` when it is not there yet: at most one download of
    ``name`` at a time. Returns what ``use`` returns.
    """
    directory = CONF.deploy.iso_master_path
    makedirs(directory)
    path = os.path.join(directory, name)
    with locked(directory, name):
        if os.path.exists(path):
            LOG.debug('Image %s is cached', name)
        else:
            with temporary(directory, name) as f:
                fetch(f)
                finish(f, path, CONF.redfish.file_permission)
        result = use(path)
        clean_cache(keep=path)
    return result


def verify():
    value = CONF.webserver_verify_ca
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        return value


def http_fetch(url, limit, what):
    """fetch(f) that downloads ``url`` (at most ``limit`` bytes)."""
    def fetch(f):
        try:
            with requests.get(url, stream=True, verify=verify(),
                              timeout=CONF.webserver_connection_timeout
                              ) as resp:
                if resp.status_code != 200:
                    raise ImageDownloadFailed(
                        image_href=url,
                        reason='HTTP %d' % resp.status_code)
                length = resp.headers.get('Content-Length')
                if length and length.isdigit() and int(length) > limit:
                    raise ImageDownloadFailed(
                        image_href=url,
                        reason='the %s is larger than %d bytes' % (what,
                                                                   limit))
                written = download_to(f, resp.iter_content(CHUNK), url,
                                      limit)
        except requests.RequestException as exc:
            raise ImageDownloadFailed(image_href=url, reason=str(exc))
        LOG.info('%s downloaded from %s (%d bytes)', what, url, written)
    return fetch
