/**
 * aria2c's arguments for a parallel download as a download manager makes one: four connections, 1 MiB pieces, each
 * connection a closed range (it fails with errorCode 8 on a wrong Content-Range), quiet, into `dir/name`.
 */
export function aria2cArgs(url: string, dir: string, name: string, headers: string[] = []): string[] {
  return [
    "-x4",
    "-s4",
    "-k1M",
    ...headers.map((header) => `--header=${header}`),
    "--allow-overwrite=true",
    "--auto-file-renaming=false",
    "--file-allocation=none",
    "--console-log-level=warn",
    "--summary-interval=0",
    "-d",
    dir,
    "-o",
    name,
    url,
  ];
}
