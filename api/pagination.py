from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_page_size(self, request):
        """``page_size`` as sent, when it is a whole number from 1 (at most ``max_page_size``);
        anything else (``null``, ``0``, ``ten``) is refused rather than quietly replaced by the
        default page size."""
        value = request.query_params.get(self.page_size_query_param)
        if value is None:
            return self.page_size
        if not value.isdigit() or int(value) < 1:
            raise ValidationError({self.page_size_query_param: [
                f"a whole number from 1 to {self.max_page_size}, not {value[:20]!r}"]})
        return min(int(value), self.max_page_size)

    def get_schema_operation_parameters(self, view):
        """DRF's, with the bounds :meth:`get_page_size` and the paginator hold: a page from 1,
        a page size from 1 (a larger one than ``max_page_size`` gets that many)."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] in (self.page_query_param, self.page_size_query_param):
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters
