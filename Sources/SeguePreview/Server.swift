import Hummingbird
import Segue

let pageBytes = PackageResources.index_html
