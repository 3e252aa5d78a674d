// Binding an httplib server with the listen backlog of the Go servers it stands in for.
//
// Debian's cpp-httplib listens with a backlog of 5, compiled into its library: in a burst
// of new connections past it (a controller's 32 per-volume inspects, say) the extra SYNs
// are dropped and each waits a second for its retransmit. kube-apiserver and Portworx's
// grpc-gateway are Go, whose net.Listen takes the kernel's somaxconn (net/sock_linux.go
// maxListenerBacklog, read from /proc/sys/net/core/somaxconn). Linux lets listen() be
// called again on a listening socket to change its backlog, and caps any larger backlog
// at somaxconn (net/socket.c __sys_listen), so asking for the most an int holds gives
// the same backlog as Go.
#pragma once

#include <sys/socket.h>

#include <limits>
#include <string>

#include <httplib.h>

namespace schedopt::sim {

/// Binds `server` to `host`:`port` (0: any free port) and raises its backlog to the
/// kernel's limit. Returns the bound port, or -1.
inline int bind_with_go_backlog(httplib::Server& server, const std::string& host, int port) {
  socket_t bound = INVALID_SOCKET;
  server.set_socket_options([&bound](socket_t sock) {
    httplib::default_socket_options(sock);
    bound = sock;
  });
  int result = port == 0 ? server.bind_to_any_port(host)
                         : (server.bind_to_port(host, port) ? port : -1);
  server.set_socket_options(httplib::default_socket_options);
  if (result > 0 && bound != INVALID_SOCKET)
    ::listen(bound, std::numeric_limits<int>::max());
  return result;
}

} // namespace schedopt::sim
