# backends.vcl for focal.vcl: copy to /etc/varnish/backends.vcl (next to focal.vcl, on varnishd's
# vcl_path) and name your replicas. Each replica is one `focal serve` (deploy/systemd/), listening
# where Varnish can reach it and nowhere else. `make cluster` writes its own file like this one.
# The names are part of the shard ring: renaming a backend moves its photos to other replicas.

backend focal1 { .host = "10.0.0.11"; .port = "8080"; .probe = focal_ready; }
backend focal2 { .host = "10.0.0.12"; .port = "8080"; .probe = focal_ready; }
backend focal3 { .host = "10.0.0.13"; .port = "8080"; .probe = focal_ready; }

sub focal_add_backends {
    focal.add_backend(focal1);
    focal.add_backend(focal2);
    focal.add_backend(focal3);
}
